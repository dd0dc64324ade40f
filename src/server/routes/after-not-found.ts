import { GatewayError } from '../../errors/index.ts';

/**
 * A list's `after` cursor that is no item of it (never held, another list's, or deleted): 404
 * naming it (docs/api-decisions.md). `where` names the list ("conversation 'conv_…'"), `items`
 * what its items are ("an item the conversation holds").
 */
export function afterNotFound(after: string, where: string, items: string): GatewayError {
  return new GatewayError('not_found', `Item with id '${after.slice(0, 200)}' not found in ${where}: 'after' must be the id of ${items} (the last id of the page before).`, {
    details: { param: 'after', id: after.slice(0, 200) },
  });
}
