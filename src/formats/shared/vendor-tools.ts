/** The `type` of each raw tool in a list (a tool without one: `unknown`); [] for anything but a list. */
export function toolTypesOf(list: unknown): string[] {
  return Array.isArray(list) ? list.map((tool) => String((tool as { type?: unknown } | null)?.type ?? 'unknown')) : [];
}
