import type { ListedModel, ModelPathFace } from '../types.ts';
import { googleModelPage, readVertexPostMethod } from './count-and-models.ts';
import { readVertexModelPath } from './read-path.ts';

/**
 * A gateway model as Vertex AI's PublisherModel, named `publishers/google/models/{gateway id}`:
 * what the SDK in Vertex mode writes back as `publishers/google/models/{m}` and the gateway
 * reads as the id `{m}`, so a listed name can be called as it is. `displayName` and `description`
 * are not PublisherModel's, but the SDK's Model keeps them.
 */
function publisherModelOf(model: ListedModel): Record<string, unknown> {
  return {
    name: `publishers/google/models/${model.id}`,
    versionId: '001',
    openSourceCategory: 'PROPRIETARY',
    launchStage: 'GA',
    displayName: model.displayName,
    description: `${model.displayName}, served by ${model.provider} through the gateway.`,
  };
}

/**
 * Vertex AI's model paths, as `@google/genai` in Vertex mode asks them: `models.list` is
 * `GET /v1beta1/publishers/google/models` (`pageSize`, `pageToken`; `{publisherModels, nextPageToken}`),
 * `models.get` is `GET …/publishers/google/models/{m}` (under the project for another publisher),
 * and tuned models (`queryBase: false`) the project's `models`, of which the gateway has none.
 */
export const vertexModels: ModelPathFace = {
  paths: ['/v1beta1/publishers/**', '/v1/publishers/**', '/v1beta1/projects/**', '/v1/projects/**', '/projects/**', '/publishers/**'],
  readPath: readVertexModelPath,
  list: (models, query) => googleModelPage(models, query, 'publisherModels', publisherModelOf),
  one: publisherModelOf,
  readPostMethod: readVertexPostMethod,
};
