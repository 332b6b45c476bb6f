// JSON served as it was stored. Documents the service writes once as canonical JSON (JSON.stringify of a value its
// schema produced, validated when written) are answered as those bytes: a page of them is assembled from the stored
// strings, never parsed, validated and serialized again per read. The bytes are the ones the read-validate-serialize
// path would produce, because parsing canonical JSON and validating it against the schema that wrote it is the
// identity (the tests that store such documents pin that equality).

/**
 * Pieces are joined into strings of at most this many characters before encoding: one string past V8's large-object
 * threshold (~128 KiB) costs several times the copy (a page of 200 events is ~140 KiB), smaller ones do not.
 */
const CHUNK_CHARS = 32 * 1024;

/** A JSON document as text (kept as the pieces it was assembled from), typed by the value it spells. */
export class StoredJson<T = unknown> {
  private readonly parts: readonly string[];
  private joined: string | undefined;

  constructor(text: string | readonly string[]) {
    this.parts = typeof text === 'string' ? [text] : text;
  }

  /** The whole document as one string. */
  get text(): string {
    return (this.joined ??= this.parts.length === 1 ? this.parts[0]! : this.parts.join(''));
  }

  /** The document as UTF-8 bytes, the body the REST face sends. */
  bytes(): Buffer {
    if (this.joined !== undefined || this.parts.length === 1) return Buffer.from(this.text);
    const chunks: string[] = [];
    let group: string[] = [];
    let size = 0;
    for (const part of this.parts) {
      if (size + part.length > CHUNK_CHARS && group.length > 0) {
        chunks.push(group.join(''));
        group = [];
        size = 0;
      }
      group.push(part);
      size += part.length;
    }
    if (group.length > 0) chunks.push(group.join(''));
    // One allocation, each chunk encoded straight into it.
    let length = 0;
    for (const chunk of chunks) length += Buffer.byteLength(chunk);
    const bytes = Buffer.allocUnsafe(length);
    let offset = 0;
    for (const chunk of chunks) offset += bytes.write(chunk, offset);
    return bytes;
  }

  /** Appends this document's pieces to `into`. */
  appendTo(into: string[]): void {
    for (const part of this.parts) into.push(part);
  }

  /**
   * The value itself, for a serializer that does not know this class (the tRPC face's JSON.stringify): it writes the
   * same bytes, only slower.
   */
  toJSON(): T {
    return JSON.parse(this.text) as T;
  }
}

/**
 * A JSON array of stored documents (each one's text), as one document: the same bytes as an array of StoredJson
 * serialized by storedAnswer, without an object per element.
 */
export function storedArray<T>(documents: readonly string[]): StoredJson<T[]> {
  const parts = ['['];
  for (let i = 0; i < documents.length; i++) {
    if (i > 0) parts.push(',');
    parts.push(documents[i]!);
  }
  parts.push(']');
  return new StoredJson<T[]>(parts);
}

const skipped = (v: unknown) => v === undefined || typeof v === 'function' || typeof v === 'symbol';

/** Appends JSON.stringify's output for `value` to `into`, any StoredJson in plain objects and arrays as stored. */
function appendStored(value: unknown, into: string[]): void {
  if (value instanceof StoredJson) return value.appendTo(into);
  if (Array.isArray(value)) {
    into.push('[');
    value.forEach((v, i) => {
      if (i > 0) into.push(',');
      if (skipped(v)) into.push('null');
      else appendStored(v, into);
    });
    into.push(']');
    return;
  }
  if (
    value !== null &&
    typeof value === 'object' &&
    Object.getPrototypeOf(value) === Object.prototype &&
    typeof (value as { toJSON?: unknown }).toJSON !== 'function'
  ) {
    into.push('{');
    let first = true;
    for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
      if (skipped(v)) continue;
      into.push(first ? `${JSON.stringify(key)}:` : `,${JSON.stringify(key)}:`);
      first = false;
      appendStored(v, into);
    }
    into.push('}');
    return;
  }
  into.push(JSON.stringify(value));
}

/** A value of type T in which any part may be given as the stored text of that part. */
export type Storable<T> =
  | T
  | StoredJson<T>
  | (T extends readonly (infer E)[] ? Storable<E>[] : T extends object ? { [K in keyof T]: Storable<T[K]> } : never);

/** A whole answer made of stored documents and fresh values: JSON.stringify's output, stored parts as stored. */
export function storedAnswer<T>(value: Storable<T>): StoredJson<T> {
  const parts: string[] = [];
  appendStored(value, parts);
  return new StoredJson<T>(parts);
}
