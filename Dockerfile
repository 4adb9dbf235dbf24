# Portcullis as a container: mount policy files under /policies and pass the flags that use them
# after the `serve` command (arguments replace CMD), e.g.
#   docker run -p 6443:6443 -v $PWD/policies:/policies:ro portcullis \
#     serve --authorization-mode=ABAC --authorization-policy-file=/policies/abac-example.jsonl
# Behind a TLS-intercepting proxy, build with its CA bundle as the secret `npmca`:
#   podman build --isolation=chroot --secret id=npmca,src=$(npm config get cafile) -t portcullis .

# Build stage: every dependency (TypeScript, AssemblyScript), then the engine and the JavaScript.
FROM node:20-bookworm-slim AS build
WORKDIR /opt/portcullis
COPY package.json package-lock.json ./
# behind a TLS-intercepting proxy, pass its CA bundle as the build secret `npmca`
# (--secret id=npmca,src=FILE): mounted for this step only, never in a layer
RUN --mount=type=secret,id=npmca \
    if [ -s /run/secrets/npmca ]; then export npm_config_cafile=/run/secrets/npmca; fi; \
    npm ci --no-audit --no-fund
COPY . .
RUN npm run build

# Runtime stage: production dependencies, the compiled server, the engine and the policies it reads
# (policies/bootstrap-rbac.yaml is the bootstrap RBAC policy); no transpiler, no sources.
FROM node:20-bookworm-slim
WORKDIR /opt/portcullis
COPY package.json package-lock.json ./
RUN --mount=type=secret,id=npmca \
    if [ -s /run/secrets/npmca ]; then export npm_config_cafile=/run/secrets/npmca; fi; \
    npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /opt/portcullis/dist ./dist
COPY --from=build /opt/portcullis/build/policy.wasm ./build/policy.wasm
COPY policies ./policies
# development certificates and the embedded store live in volumes, never in the image; the server
# runs as the image's unprivileged `node` user, which owns them
RUN mkdir -p certs data && chown node:node certs data
USER node
VOLUME ["/opt/portcullis/certs", "/opt/portcullis/data", "/policies"]
EXPOSE 6443
# /livez is open to anonymous requests under the bootstrap RBAC policy (system:discovery)
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s \
  CMD ["node", "-e", "require('https').get({host:'127.0.0.1',port:6443,path:'/livez',rejectUnauthorized:false},r=>process.exit(r.statusCode===200?0:1)).on('error',()=>process.exit(1))"]
ENTRYPOINT ["node", "dist/main.js"]
CMD ["serve"]
