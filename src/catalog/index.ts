/** The bundled model catalog: prices, context windows, capabilities and modalities from maintained npm packages. */
export { openCatalogProvider, type CatalogProvider } from './load-bundled-catalog.ts';
export { mergeSpecLayers, applyConfigEntry } from './merge-spec.ts';
export { hasPrice, isAddOnPrice } from './has-price.ts';
export { ModelIdIndex, stripDateSuffix } from './match-model-id.ts';
export { mapPackagePrices, mapModelsDevCost } from './map-prices.ts';
export { mapModelsDevEntry, type ModelsDevEntry } from './map-models-dev.ts';
