# syntax=docker/dockerfile:1
# One image for every process: the control plane, the worker, the agent node, the one-off
# migrate (and example seed) job, and cpctl. The command picks the process (docker-compose.yml).
#
# test/e2e/container-image.e2e-spec.ts rebuilds this image's filesystem without Docker by
# running these very instructions and boots each app from it: keep to FROM, ARG, WORKDIR, ENV,
# COPY, RUN, USER, EXPOSE and CMD (the test refuses anything else).

ARG NODE_IMAGE=node:24-bookworm-slim

# Build stage: every dependency, then compile all apps and libs into dist/ (the admin console's
# static files into dist/console: the runtime needs none of its packages, all devDependencies).
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY apps/cpctl/package.json apps/cpctl/package.json
COPY apps/cpctl/bin apps/cpctl/bin
COPY apps/console/package.json apps/console/package.json
COPY tools tools
COPY prisma prisma
RUN --mount=type=cache,target=/root/.npm npm ci --no-audit --no-fund
COPY . .
RUN npm run build

# Runtime stage: production dependencies only, the compiled dist/, a non-root user. No install
# scripts: the Prisma client is generated and compiled into dist/ by the build stage. Optional
# dependencies are left out too: npm counts the prisma CLI and typescript (optional peers of
# @prisma/client) as such, and would otherwise ship them; what is left (msgpackr-extract, a
# native speed-up bullmq falls back from, and pg-cloudflare) is not needed.
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
COPY apps/cpctl/package.json apps/cpctl/package.json
COPY apps/cpctl/bin apps/cpctl/bin
COPY apps/console/package.json apps/console/package.json
RUN --mount=type=cache,target=/root/.npm npm ci --omit=dev --omit=optional --ignore-scripts --no-audit --no-fund
COPY --from=build /app/dist dist
RUN mkdir -p .cache/agent-node && chown -R node:node .cache
USER node
EXPOSE 3000 3001 3002
CMD ["node", "dist/apps/control-plane/src/main.js"]
