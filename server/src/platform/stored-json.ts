// JSON served as it was stored. Documents the service writes once as canonical JSON (JSON.stringify of a value its
// schema produced, validated when written) are answered as those bytes: a page of them is assembled from the stored
// strings, never parsed, validated and serialized again per read. The bytes are the ones the read-validate-serialize
// path would produce, because parsing canonical JSON and validating it against the schema that wrote it is the
// identity (the tests that store such documents pin that equality).

/** A JSON document as text, typed by the value it spells. */
export class StoredJson<T = unknown> {
  constructor(readonly text: string) {}

  /**
   * The value itself, for a serializer that does not know this class (the tRPC face's JSON.stringify): it writes the
   * same bytes, only slower.
   */
  toJSON(): T {
    return JSON.parse(this.text) as T;
  }
}

/**
 * JSON.stringify's output for `value`, where any StoredJson inside plain objects and arrays is written as its text
 * without being parsed. Anything else is JSON.stringify's own business.
 */
export function stringifyStored(value: unknown): string {
  if (value instanceof StoredJson) return value.text;
  if (Array.isArray(value)) {
    return `[${value.map((v) => (v === undefined || typeof v === 'function' || typeof v === 'symbol' ? 'null' : stringifyStored(v))).join(',')}]`;
  }
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const members: string[] = [];
    for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
      if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
      members.push(`${JSON.stringify(key)}:${stringifyStored(v)}`);
    }
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value);
}

/** A value of type T in which any part may be given as the stored text of that part. */
export type Storable<T> =
  | T
  | StoredJson<T>
  | (T extends readonly (infer E)[] ? Storable<E>[] : T extends object ? { [K in keyof T]: Storable<T[K]> } : never);

/** A whole answer made of stored documents and fresh values, serialized once, now. */
export function storedAnswer<T>(value: Storable<T>): StoredJson<T> {
  return new StoredJson<T>(stringifyStored(value));
}
