import { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { LOOP_SEARCH_ATTRIBUTES } from '../workflows/search-attributes';

const INDEXED_TYPE: Record<string, temporal.api.enums.v1.IndexedValueType> = {
  KEYWORD: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
  TEXT: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_TEXT,
  INT: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_INT,
  DOUBLE: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_DOUBLE,
  BOOL: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_BOOL,
  DATETIME: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_DATETIME,
  KEYWORD_LIST: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD_LIST,
};

/** Registers the project's search attributes that a cluster lacks; returns the names it added. */
export async function ensureSearchAttributes(connection: Connection, namespace: string): Promise<string[]> {
  const existing = await connection.operatorService.listSearchAttributes({ namespace });
  const known = new Set(Object.keys(existing.customAttributes ?? {}));
  const missing = LOOP_SEARCH_ATTRIBUTES.filter((key) => !known.has(key.name));
  if (missing.length === 0) return [];
  const searchAttributes: Record<string, temporal.api.enums.v1.IndexedValueType> = {};
  for (const key of missing) {
    const type = INDEXED_TYPE[key.type];
    if (type !== undefined) searchAttributes[key.name] = type;
  }
  await connection.operatorService.addSearchAttributes({ namespace, searchAttributes });
  return missing.map((key) => key.name);
}
