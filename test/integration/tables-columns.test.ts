// The cells of the kinds' columns for objects in states a fresh server does not produce (running
// and crashing pods, finished jobs, autoscalers, endpoints), and the reference's human durations.
import test from 'ava';
import type { ApiObject } from '../../src/api/object.ts';
import { humanDuration, formatSelector } from '../../src/kinds/columns.ts';
import { endpointsColumns, podColumns, serviceColumns } from '../../src/kinds/core/columns.ts';
import { horizontalPodAutoscalerColumns, jobColumns } from '../../src/kinds/extensions/columns.ts';

const NOW = Date.parse('2026-01-10T12:00:00Z');
const ago = (s: number) => new Date(NOW - s * 1000).toISOString();
const obj = (o: Record<string, unknown>) => ({ metadata: { name: 'x', creationTimestamp: ago(3700) }, ...o }) as unknown as ApiObject;

test('human durations as the reference prints them', (t) => {
  const cases: Array<[number, string]> = [[-5, '<invalid>'], [-1, '0s'], [0, '0s'], [119, '119s'], [120, '2m'], [200, '3m20s'], [600, '10m'], [3 * 3600, '3h'], [3 * 3600 + 120, '3h2m'], [30 * 3600, '30h'], [50 * 3600, '2d2h'], [9 * 86400, '9d'], [800 * 86400, '2y70d'], [9 * 365 * 86400, '9y']];
  for (const [s, want] of cases) t.is(humanDuration(s * 1000), want, String(s));
});

test('label selectors print as selector strings', (t) => {
  t.is(formatSelector({ matchLabels: { b: '2', a: '1' }, matchExpressions: [{ key: 'c', operator: 'In', values: ['y', 'x'] }, { key: 'd', operator: 'DoesNotExist' }] }), '!d,a=1,b=2,c in (x,y)');
  t.is(formatSelector(undefined), '<none>');
});

test('pods: running, crashing with restarts, terminating', (t) => {
  const running = obj({
    spec: { containers: [{ name: 'a' }, { name: 'b' }] },
    status: { phase: 'Running', podIP: '10.1.0.4', containerStatuses: [{ name: 'a', ready: true, restartCount: 0, state: { running: {} } }, { name: 'b', ready: true, restartCount: 0, state: { running: {} } }] },
  });
  t.deepEqual(podColumns.cells(running, NOW).slice(0, 6), ['x', '2/2', 'Running', '0', '61m', '10.1.0.4']);
  const crashing = obj({
    spec: { containers: [{ name: 'a' }] },
    status: { phase: 'Running', containerStatuses: [{ name: 'a', ready: false, restartCount: 4, state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: { terminated: { exitCode: 1, finishedAt: ago(90) } } }] },
  });
  t.deepEqual(podColumns.cells(crashing, NOW).slice(1, 4), ['0/1', 'CrashLoopBackOff', '4 (90s ago)']);
  const init = obj({ spec: { initContainers: [{ name: 'i' }], containers: [{ name: 'a' }] }, status: { phase: 'Pending', initContainerStatuses: [{ name: 'i', state: { running: {} } }] } });
  t.is(podColumns.cells(init, NOW)[2], 'Init:0/1');
  const terminating = obj({ metadata: { name: 'x', deletionTimestamp: ago(1) }, spec: { containers: [{ name: 'a' }] }, status: { phase: 'Running' } });
  t.is(podColumns.cells(terminating, NOW)[2], 'Terminating');
});

test('services, jobs, autoscalers and endpoints', (t) => {
  const lb = obj({ spec: { type: 'LoadBalancer', clusterIP: '10.0.0.9', ports: [{ port: 443, nodePort: 30443, protocol: 'TCP' }, { port: 53, protocol: 'UDP' }] }, status: { loadBalancer: {} } });
  t.deepEqual(serviceColumns.cells(lb, NOW), ['x', 'LoadBalancer', '10.0.0.9', '<pending>', '443:30443/TCP,53/UDP', '61m', '<none>']);
  const job = obj({
    spec: { completions: 3, template: { spec: { containers: [{ name: 'pi', image: 'perl' }] } }, selector: { matchLabels: { j: 'x' } } },
    status: { succeeded: 3, startTime: ago(100), completionTime: ago(40), conditions: [{ type: 'Complete', status: 'True' }] },
  });
  t.deepEqual(jobColumns.cells(job, NOW), ['x', 'Complete', '3/3', '60s', '61m', 'pi', 'perl', 'j=x']);
  const hpa = obj({ spec: { scaleTargetRef: { kind: 'Deployment', name: 'web' }, minReplicas: 1, maxReplicas: 5, targetCPUUtilizationPercentage: 80 }, status: { currentReplicas: 2 } });
  t.deepEqual(horizontalPodAutoscalerColumns.cells(hpa, NOW), ['x', 'Deployment/web', 'cpu: <unknown>/80%', '1', 5, 2, '61m']);
  const ep = obj({ subsets: [{ addresses: [{ ip: '1.1.1.1' }, { ip: '1.1.1.2' }], ports: [{ port: 80 }, { port: 81 }] }] });
  t.is(endpointsColumns.cells(ep, NOW)[1], '1.1.1.1:80,1.1.1.1:81,1.1.1.2:80 + 1 more...');
});
