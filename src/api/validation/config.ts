// Secret, ConfigMap and ServiceAccount (v1).
import { field, type FieldError } from '../../request/errors.ts';
import type { ApiObject } from '../object.ts';
import { setOwn } from '../safe-json.ts';
import { isConfigMapKey, isValidConfigMapKey, isDNS1123Subdomain } from './names.ts';
import { FIELD_IMMUTABLE } from './meta.ts';
import { asArray, asObject, asString, path, setDefault, type JsonObject } from './json.ts';

type Mutable = ApiObject & JsonObject;

/** Total bytes of a Secret's or ConfigMap's data. */
export const MAX_SECRET_SIZE = 1024 * 1024;

export const SECRET_TYPE_SERVICE_ACCOUNT_TOKEN = 'platform.io/service-account-token';
export const SA_NAME_ANNOTATION = 'platform.io/service-account.name';
/** Token-secret annotation naming the account's uid. */
export const SA_UID_ANNOTATION = 'platform.io/service-account.uid';

const base64Re = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export function isBase64(s: string): boolean {
  return base64Re.test(s);
}

export function decodedLength(b64: string): number {
  const pad = b64.endsWith('==') ? 2 : b64.endsWith('=') ? 1 : 0;
  return (b64.length / 4) * 3 - pad;
}

/** `stringData` is a write-only convenience: it is merged into `data` (base64) and dropped. */
export function defaultSecret(obj: Mutable): void {
  setDefault(obj, 'type', 'Opaque');
  const stringData = asObject(obj.stringData);
  if (stringData) {
    const data = asObject(obj.data) ?? {};
    for (const [k, v] of Object.entries(stringData)) if (typeof v === 'string') setOwn(data, k, Buffer.from(v, 'utf8').toString('base64'));
    obj.data = data;
    delete obj.stringData;
  }
}

function requireKey(data: JsonObject, key: string, errs: FieldError[]): void {
  if (data[key] === undefined) errs.push(field.required(path.key('data', key)));
}

export function validateSecret(obj: ApiObject, old: ApiObject | undefined): FieldError[] {
  const errs: FieldError[] = [];
  const data = asObject(obj.data) ?? {};
  if (obj.data !== undefined && obj.data !== null && !asObject(obj.data)) errs.push(field.invalid('data', obj.data, 'must be a map of keys to base64-encoded values'));
  let total = 0;
  for (const key of Object.keys(data)) {
    const value = data[key];
    if (!isValidConfigMapKey(key)) for (const msg of isConfigMapKey(key)) errs.push(field.invalid(path.key('data', key), key, msg));
    if (typeof value !== 'string' || !isBase64(value)) {
      errs.push(field.invalid(path.key('data', key), '<secret contents redacted>', 'must be a base64-encoded string'));
      continue;
    }
    total += decodedLength(value);
  }
  if (total > MAX_SECRET_SIZE) errs.push(field.tooLong('data', MAX_SECRET_SIZE));
  const type = asString(obj.type) ?? '';
  switch (type) {
    case SECRET_TYPE_SERVICE_ACCOUNT_TOKEN: {
      const annotations = obj.metadata.annotations ?? {};
      if (!annotations[SA_NAME_ANNOTATION]) errs.push(field.required(path.key('metadata.annotations', SA_NAME_ANNOTATION)));
      break;
    }
    case 'platform.io/dockercfg':
      requireKey(data, '.dockercfg', errs);
      break;
    case 'platform.io/dockerconfigjson':
      requireKey(data, '.dockerconfigjson', errs);
      break;
    case 'platform.io/tls':
      requireKey(data, 'tls.crt', errs);
      requireKey(data, 'tls.key', errs);
      break;
  }
  if (old && (old.type ?? 'Opaque') !== (obj.type ?? 'Opaque')) errs.push(field.invalid('type', obj.type ?? '', FIELD_IMMUTABLE));
  return errs;
}

export function validateConfigMap(obj: ApiObject): FieldError[] {
  const errs: FieldError[] = [];
  if (obj.data !== undefined && obj.data !== null && !asObject(obj.data)) return [field.invalid('data', obj.data, 'must be a map of string keys to string values')];
  let total = 0;
  const data = asObject(obj.data) ?? {};
  for (const key of Object.keys(data)) {
    const value = data[key];
    if (!isValidConfigMapKey(key)) for (const msg of isConfigMapKey(key)) errs.push(field.invalid(path.key('data', key), key, msg));
    if (typeof value !== 'string') {
      errs.push(field.invalid(path.key('data', key), value, 'must be a string'));
      continue;
    }
    total += Buffer.byteLength(value);
  }
  if (total > MAX_SECRET_SIZE) errs.push(field.tooLong('data', MAX_SECRET_SIZE));
  return errs;
}

export function validateServiceAccount(obj: ApiObject): FieldError[] {
  const errs: FieldError[] = [];
  for (const key of ['secrets', 'imagePullSecrets'] as const) {
    (asArray(obj[key]) ?? []).forEach((raw, i) => {
      const name = asString(asObject(raw)?.name) ?? '';
      const p = path.child(path.index(key, i), 'name');
      if (!name) errs.push(field.required(p));
      else for (const msg of isDNS1123Subdomain(name)) errs.push(field.invalid(p, name, msg));
    });
  }
  return errs;
}
