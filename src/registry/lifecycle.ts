// moved: src/admission/namespace-lifecycle.ts. Delete at merge once src/server/server.ts imports from there.
export { namespaceLifecycle, systemNamespaces } from '../admission/namespace-lifecycle.ts';
