// PodLogOptions from the query (api-machinery §8.4): parsed as the reference's parameter codec does
// (a malformed value is a 400), validated as ValidatePodLogOptions (422 on kind PodLogOptions), and
// the container chosen as the reference's LogLocation chooses it.
import { isPlainObject, type ApiObject } from '../../api/object.ts';
import { errors, field, type FieldError } from '../../request/errors.ts';

export interface PodLogOptions {
  container: string;
  follow: boolean;
  previous: boolean;
  timestamps: boolean;
  sinceSeconds?: number;
  sinceTime?: string;
  tailLines?: number;
  limitBytes?: number;
}

const INT64 = /^[+-]?\d{1,19}$/;

function boolParam(q: URLSearchParams, name: string): boolean {
  const v = q.get(name);
  if (v === null || v === '') return false;
  // Go's strconv.ParseBool
  if (['1', 't', 'T', 'true', 'TRUE', 'True'].includes(v)) return true;
  if (['0', 'f', 'F', 'false', 'FALSE', 'False'].includes(v)) return false;
  throw errors.badRequest(`strconv.ParseBool: parsing ${JSON.stringify(v)}: invalid syntax`);
}

function intParam(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name);
  if (v === null || v === '') return undefined;
  if (!INT64.test(v) || !Number.isSafeInteger(Number(v))) throw errors.badRequest(`strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
  return Number(v);
}

/** RFC 3339 as Go parses it (a zone is required). */
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

export function parseLogOptions(q: URLSearchParams, podName: string): PodLogOptions {
  const sinceTimeRaw = q.get('sinceTime');
  let sinceTime: string | undefined;
  if (sinceTimeRaw !== null && sinceTimeRaw !== '') {
    if (!RFC3339.test(sinceTimeRaw) || Number.isNaN(Date.parse(sinceTimeRaw))) {
      throw errors.badRequest(`parsing time ${JSON.stringify(sinceTimeRaw)} as "2006-01-02T15:04:05Z07:00": cannot parse ${JSON.stringify(sinceTimeRaw)} as "2006"`);
    }
    sinceTime = sinceTimeRaw;
  }
  const o: PodLogOptions = {
    container: q.get('container') ?? '',
    follow: boolParam(q, 'follow'),
    previous: boolParam(q, 'previous'),
    timestamps: boolParam(q, 'timestamps'),
    sinceSeconds: intParam(q, 'sinceSeconds'),
    sinceTime,
    tailLines: intParam(q, 'tailLines'),
    limitBytes: intParam(q, 'limitBytes'),
  };
  const errs: FieldError[] = [];
  if (o.tailLines !== undefined && o.tailLines < 0) errs.push(field.invalid('tailLines', o.tailLines, 'must be greater than or equal to 0'));
  if (o.limitBytes !== undefined && o.limitBytes < 1) errs.push(field.invalid('limitBytes', o.limitBytes, 'must be greater than 0'));
  if (o.sinceSeconds !== undefined && o.sinceTime !== undefined) errs.push(field.forbidden('', 'at most one of `sinceTime` or `sinceSeconds` may be specified'));
  else if (o.sinceSeconds !== undefined && o.sinceSeconds < 1) errs.push(field.invalid('sinceSeconds', o.sinceSeconds, 'must be greater than 0'));
  if (errs.length) throw errors.invalid('', 'PodLogOptions', podName, errs);
  return o;
}

function names(list: unknown): string[] {
  return (Array.isArray(list) ? list : []).flatMap((c) => (isPlainObject(c) && typeof c.name === 'string' ? [c.name] : []));
}

/** The container a log (or exec/attach) request reads: the named one, or the pod's only one (400 otherwise). */
export function chooseContainer(pod: ApiObject, requested: string): string {
  const spec = isPlainObject(pod.spec) ? pod.spec : {};
  const containers = names(spec.containers);
  const init = names(spec.initContainers);
  const name = pod.metadata.name;
  if (!requested) {
    if (containers.length === 1) return containers[0];
    if (containers.length === 0) throw errors.badRequest(`a container name must be specified for pod ${name}`);
    let msg = `a container name must be specified for pod ${name}, choose one of: [${containers.join(' ')}]`;
    if (init.length) msg += ` or one of the init containers: [${init.join(' ')}]`;
    throw errors.badRequest(msg);
  }
  if (!containers.includes(requested) && !init.includes(requested)) throw errors.badRequest(`container ${requested} is not valid for pod ${name}`);
  return requested;
}

/** The kubelet's query for /containerLogs (the same parameter names, only those set). */
export function kubeletLogQuery(o: PodLogOptions): string {
  const q = new URLSearchParams();
  if (o.follow) q.set('follow', 'true');
  if (o.previous) q.set('previous', 'true');
  if (o.timestamps) q.set('timestamps', 'true');
  if (o.sinceSeconds !== undefined) q.set('sinceSeconds', String(o.sinceSeconds));
  if (o.sinceTime !== undefined) q.set('sinceTime', o.sinceTime);
  if (o.tailLines !== undefined) q.set('tailLines', String(o.tailLines));
  if (o.limitBytes !== undefined) q.set('limitBytes', String(o.limitBytes));
  const s = q.toString();
  return s ? `?${s}` : '';
}
