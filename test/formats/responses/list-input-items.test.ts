import { describe, expect, it } from 'vitest';
import { inputItemsOf } from '../../../src/formats/responses/index.ts';

describe('inputItemsOf (GET /v1/responses/{id}/input_items)', () => {
  it("names an item without an id by its type's prefix, 'item' for a type it does not know, also one that is a prototype key's name", () => {
    const items = inputItemsOf({ input: [{ type: 'function_call', call_id: 'c', name: 'f', arguments: '{}' }, { type: 'toString' }, { type: 'constructor' }] }, 'resp_abc');
    expect(items.map((item) => item.id)).toEqual(['fc_gwabci0', 'item_gwabci1', 'item_gwabci2']);
  });
});
