# Portcullis as a container: mount policy files under /policies and pass the flags that use them, e.g.
#   docker run -p 6443:6443 -v $PWD/policies:/policies portcullis \
#     --authorization-mode=ABAC --authorization-policy-file=/policies/abac-example.jsonl
FROM node:20-bookworm-slim
WORKDIR /opt/portcullis
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build
# development certificates and the embedded store live in volumes, never in the image
VOLUME ["/opt/portcullis/certs", "/opt/portcullis/data", "/policies"]
EXPOSE 6443
ENTRYPOINT ["node", "bin/portcullis.mjs"]
CMD ["serve"]
