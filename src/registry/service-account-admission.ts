// moved: src/admission/service-account.ts. Delete at merge once src/controllers/{index,service-accounts}.ts import from there.
export { DEFAULT_SERVICE_ACCOUNT_NAME, serviceAccountAdmission } from '../admission/service-account.ts';
