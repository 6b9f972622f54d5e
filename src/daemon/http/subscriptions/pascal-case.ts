/**
 * The subscriptions API's XML documents name their elements as the reference's XML codec does,
 * after its DTOs' properties: PascalCase (`EventStreamId`, `GroupName`, `Links`/`Href`), while its
 * JSON documents keep camelCase.
 */

function pascalName(key: string): string {
  return key.length === 0 ? key : key[0].toUpperCase() + key.slice(1);
}

/** `value` with every object key, at any depth, in PascalCase. */
export function pascalCased(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(pascalCased);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([key, member]) => [pascalName(key), pascalCased(member)]));
}
