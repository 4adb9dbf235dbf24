"""Debian's python3-kubernetes against a Portcullis server (URL in argv[1]): AppsV1Api and
RbacAuthorizationV1Api create, read, list, replace, patch, scale, delete and watch. Prints one JSON
line of what it saw; any failed check raises (non-zero exit). Run by python-client-versions.test.ts."""
import json
import sys

from kubernetes import client, watch
from kubernetes.client.rest import ApiException

cfg = client.Configuration()
cfg.host = sys.argv[1]
api = client.ApiClient(cfg)
core = client.CoreV1Api(api)
apps = client.AppsV1Api(api)
rbac = client.RbacAuthorizationV1Api(api)
NS = "py"
out = {}

core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=NS)))

# ---- AppsV1Api: Deployment ----
rv = apps.list_namespaced_deployment(NS).metadata.resource_version
template = client.V1PodTemplateSpec(
    metadata=client.V1ObjectMeta(labels={"app": "py"}),
    spec=client.V1PodSpec(containers=[client.V1Container(name="c", image="nginx:1.11")]),
)
dep = client.V1Deployment(
    metadata=client.V1ObjectMeta(name="web"),
    spec=client.V1DeploymentSpec(replicas=2, selector=client.V1LabelSelector(match_labels={"app": "py"}), template=template),
)
created = apps.create_namespaced_deployment(NS, dep)
assert created.api_version == "apps/v1", created.api_version
out["defaults"] = [created.spec.revision_history_limit, created.spec.progress_deadline_seconds, created.spec.strategy.rolling_update.max_surge]
got = apps.read_namespaced_deployment("web", NS)
got.spec.replicas = 3
replaced = apps.replace_namespaced_deployment("web", NS, got)
assert replaced.spec.replicas == 3
patched = apps.patch_namespaced_deployment("web", NS, {"metadata": {"labels": {"patched": "yes"}}})
assert patched.metadata.labels == {"patched": "yes"}, patched.metadata.labels
scale = apps.read_namespaced_deployment_scale("web", NS)
out["scale"] = [scale.api_version, scale.spec.replicas, scale.status.selector]
scale.spec.replicas = 4
assert apps.replace_namespaced_deployment_scale("web", NS, scale).spec.replicas == 4
out["list"] = [d.metadata.name for d in apps.list_namespaced_deployment(NS).items]
apps.delete_namespaced_deployment("web", NS)
try:
    apps.read_namespaced_deployment("web", NS)
    raise AssertionError("deleted deployment still readable")
except ApiException as e:
    assert e.status == 404, e.status

events = []
w = watch.Watch()
for ev in w.stream(apps.list_namespaced_deployment, NS, resource_version=rv, timeout_seconds=10):
    events.append([ev["type"], ev["object"].api_version, ev["object"].spec.replicas])
    if ev["type"] == "DELETED":
        w.stop()
out["deploymentEvents"] = events

# ---- AppsV1Api: ReplicaSet, DaemonSet; a missing selector is refused ----
rs = client.V1ReplicaSet(metadata=client.V1ObjectMeta(name="rs"), spec=client.V1ReplicaSetSpec(replicas=1, selector=client.V1LabelSelector(match_labels={"app": "py"}), template=template))
assert apps.create_namespaced_replica_set(NS, rs).api_version == "apps/v1"
ds = client.V1DaemonSet(metadata=client.V1ObjectMeta(name="ds"), spec=client.V1DaemonSetSpec(selector=client.V1LabelSelector(match_labels={"app": "py"}), template=template))
out["daemonSetStrategy"] = apps.create_namespaced_daemon_set(NS, ds).spec.update_strategy.type
out["replicaSets"] = [r.metadata.name for r in apps.list_namespaced_replica_set(NS).items]
try:
    api.call_api("/apis/apps/v1/namespaces/{namespace}/replicasets", "POST", path_params={"namespace": NS},
                 body={"metadata": {"name": "bad"}, "spec": {"template": api.sanitize_for_serialization(template)}},
                 header_params={"Content-Type": "application/json"}, response_type="object", _return_http_data_only=True)
    raise AssertionError("a replica set without selector was accepted")
except ApiException as e:
    out["noSelector"] = [e.status, json.loads(e.body)["details"]["causes"][0]["field"]]

# ---- RbacAuthorizationV1Api ----
rrv = rbac.list_namespaced_role_binding(NS).metadata.resource_version
role = client.V1Role(metadata=client.V1ObjectMeta(name="reader"), rules=[client.V1PolicyRule(api_groups=[""], resources=["pods"], verbs=["get", "list"])])
assert rbac.create_namespaced_role(NS, role).api_version == "rbac.authorization.k8s.io/v1"
rb = client.V1RoleBinding(
    metadata=client.V1ObjectMeta(name="read"),
    role_ref=client.V1RoleRef(api_group="rbac.authorization.k8s.io", kind="Role", name="reader"),
    subjects=[client.V1Subject(kind="User", name="alice", api_group="rbac.authorization.k8s.io")],
)
rbac.create_namespaced_role_binding(NS, rb)
got = rbac.read_namespaced_role_binding("read", NS)
got.subjects.append(client.V1Subject(kind="ServiceAccount", name="default", namespace=NS))
replaced = rbac.replace_namespaced_role_binding("read", NS, got)
out["subjects"] = [[s.kind, s.name, s.api_group] for s in replaced.subjects]
out["roleRef"] = replaced.role_ref.api_group
cr = client.V1ClusterRole(metadata=client.V1ObjectMeta(name="py-view"), rules=[client.V1PolicyRule(api_groups=["apps"], resources=["deployments"], verbs=["get"])])
rbac.create_cluster_role(cr)
crb = client.V1ClusterRoleBinding(metadata=client.V1ObjectMeta(name="py-view"), role_ref=client.V1RoleRef(api_group="rbac.authorization.k8s.io", kind="ClusterRole", name="py-view"),
                                  subjects=[client.V1Subject(kind="Group", name="devs", api_group="rbac.authorization.k8s.io")])
rbac.create_cluster_role_binding(crb)
out["clusterRoles"] = "py-view" in [r.metadata.name for r in rbac.list_cluster_role().items]
rbac.delete_namespaced_role_binding("read", NS)
rbac.delete_cluster_role_binding("py-view")
rbac.delete_cluster_role("py-view")
events = []
w = watch.Watch()
for ev in w.stream(rbac.list_namespaced_role_binding, NS, resource_version=rrv, timeout_seconds=10):
    events.append([ev["type"], ev["object"].api_version, ev["object"].role_ref.api_group])
    if ev["type"] == "DELETED":
        w.stop()
out["bindingEvents"] = events
print(json.dumps(out))
