// The server's options: the combination of the concerns, each with its own module, flag table,
// defaults and checks. Flag names follow the reference API server (--secure-port,
// --authorization-mode, --runtime-config, ...). Consumers take their concern's type, not this one.
import { api, type ApiOptions } from './api.ts';
import { authentication, type AuthenticationOptions } from './authentication.ts';
import { authorization, type AuthorizationOptions } from './authorization.ts';
import { buildConcern } from './concern.ts';
import { kubelet, type KubeletOptions } from './kubelet.ts';
import { serving, type ServingOptions } from './serving.ts';
import { storage, type StorageOptions } from './storage.ts';

export type { ApiOptions, AuthenticationOptions, AuthorizationOptions, KubeletOptions, ServingOptions, StorageOptions };

export type ServerOptions = ServingOptions & AuthenticationOptions & AuthorizationOptions & StorageOptions & ApiOptions & KubeletOptions;

/** The concerns in the order `serve --help` lists them. */
export const serverConcerns = [serving, authentication, authorization, storage, api, kubelet] as const;

/** The library defaults (what `createServer` fills in): every concern's defaults together. */
export function defaultServerOptions(): ServerOptions {
  return { ...serving.defaults(), ...authentication.defaults(), ...authorization.defaults(), ...storage.defaults(), ...api.defaults(), ...kubelet.defaults() };
}

/** Every concern's builder over `base`: the given flags win, then each concern checks its values. */
export function buildServerOptions(flags: Partial<ServerOptions>, base: ServerOptions = defaultServerOptions()): ServerOptions {
  let options = buildConcern<ServingOptions, ServerOptions>(serving, flags, base);
  options = buildConcern<AuthenticationOptions, ServerOptions>(authentication, flags, options);
  options = buildConcern<AuthorizationOptions, ServerOptions>(authorization, flags, options);
  options = buildConcern<StorageOptions, ServerOptions>(storage, flags, options);
  options = buildConcern<ApiOptions, ServerOptions>(api, flags, options);
  return buildConcern<KubeletOptions, ServerOptions>(kubelet, flags, options);
}
