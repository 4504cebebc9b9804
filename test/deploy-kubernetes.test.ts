// The Kubernetes manifests (deploy/kubernetes/): every one valid under the Kubernetes schemas
// (kubernetes-models' validators), the kustomization listing every one, the settings they give
// the service its own (src/config.ts) and a valid configuration, and the parts fitting
// together: probes on the health paths the service answers, selectors that select, a grace
// period longer than the service's own stop, resource requests on every container.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { Job } from 'kubernetes-models/batch/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, type IContainer, type IPodSpec, Service } from 'kubernetes-models/v1';
import { loadConfig, SETTING_NAMES } from '../src/config.ts';
import { call, startTestServer, type TestServer } from './helpers.ts';
import { parseYaml } from './yaml-subset.ts';

const DIR = 'deploy/kubernetes';

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

// The kinds the manifests use, each with the model that validates it.
const MODELS: Record<string, { validate(data: unknown): void }> = {
  'apps/v1 Deployment': { validate: (data) => new Deployment(data as never).validate() },
  'autoscaling/v2 HorizontalPodAutoscaler': {
    validate: (data) => new HorizontalPodAutoscaler(data as never).validate(),
  },
  'batch/v1 Job': { validate: (data) => new Job(data as never).validate() },
  'policy/v1 PodDisruptionBudget': { validate: (data) => new PodDisruptionBudget(data as never).validate() },
  'v1 ConfigMap': { validate: (data) => new ConfigMap(data as never).validate() },
  'v1 Service': { validate: (data) => new Service(data as never).validate() },
};

const kustomization = parseYaml(readFileSync(join(DIR, 'kustomization.yaml'), 'utf8')) as {
  resources: string[];
  images: Array<{ name: string; newName: string; newTag: string }>;
};
const files = readdirSync(DIR).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml');
const manifests = new Map<string, Manifest>(
  files.map((f) => [f, parseYaml(readFileSync(join(DIR, f), 'utf8')) as unknown as Manifest]),
);
const all = [...manifests.values()];
const find = (kind: string, name: string): Manifest => {
  const found = all.find((m) => m.kind === kind && m.metadata.name === name);
  assert.ok(found, `no ${kind} ${name}`);
  return found;
};
const podSpec = (m: Manifest): IPodSpec => (m.spec as { template: { spec: IPodSpec } }).template.spec;
const podLabels = (m: Manifest): Record<string, string> =>
  (m.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels;
const selects = (selector: Record<string, string>, labels: Record<string, string>) =>
  Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => labels[k] === v);
const workloads = all.filter((m) => m.kind === 'Deployment' || m.kind === 'Job');
const containers = (m: Manifest): IContainer[] => podSpec(m).containers;

const configMap = find('ConfigMap', 'genmedia') as Manifest & { data: Record<string, string> };
const secretExample = readFileSync(join(DIR, 'secret.env.example'), 'utf8');
const secretKeys = [...secretExample.matchAll(/^([A-Z][A-Z0-9_]*)=(.*)$/gm)].map((m) => m[1] as string);

/** A container's environment as the cluster gives it: the ConfigMap, the Secret (filled in), then `env`. */
function containerEnv(container: IContainer): Record<string, string> {
  const env: Record<string, string> = {};
  for (const from of container.envFrom ?? []) {
    if (from.configMapRef) Object.assign(env, configMap.data);
    if (from.secretRef)
      for (const key of secretKeys)
        env[key] =
          key === 'DATABASE_URL'
            ? 'postgres://genmedia:secret@postgres.example.internal:5432/genmedia'
            : `${key.toLowerCase()}-0123456789abcdef0123456789`;
  }
  for (const variable of container.env ?? []) if (variable.value !== undefined) env[variable.name] = variable.value;
  return env;
}

describe('the Kubernetes manifests (deploy/kubernetes)', () => {
  test('the kustomization lists every manifest, and each listed exists', () => {
    assert.deepEqual([...kustomization.resources].sort(), [...files].sort());
    for (const file of kustomization.resources) assert.ok(existsSync(join(DIR, file)), file);
    assert.deepEqual(
      kustomization.images.map((i) => i.name),
      ['genmedia'],
    );
    for (const m of workloads) for (const c of containers(m)) assert.equal(c.image, 'genmedia', `${m.metadata.name}`);
  });

  test('every manifest is valid under the Kubernetes schema of its kind', () => {
    for (const [file, manifest] of manifests) {
      const model = MODELS[`${manifest.apiVersion} ${manifest.kind}`];
      assert.ok(model, `${file}: ${manifest.apiVersion} ${manifest.kind} has no model here`);
      assert.doesNotThrow(() => model.validate(manifest), `${file} is not valid`);
    }
    // The validators do refuse a wrong manifest.
    const broken = structuredClone(find('Deployment', 'genmedia-api')) as Manifest;
    (podSpec(broken).containers[0] as { ports: unknown[] }).ports = [{ containerPort: 'http' }];
    assert.throws(() => MODELS['apps/v1 Deployment']?.validate(broken), /containerPort must be integer/);
  });

  test('the settings they give the service are its own, and make a valid API, worker and migration configuration', () => {
    const known = new Set(SETTING_NAMES);
    for (const key of Object.keys(configMap.data)) assert.ok(known.has(key), `ConfigMap key ${key} is no setting`);
    for (const key of secretKeys) assert.ok(known.has(key), `Secret key ${key} is no setting`);
    for (const m of workloads)
      for (const c of containers(m)) {
        for (const variable of c.env ?? []) assert.ok(known.has(variable.name), `${m.metadata.name}: ${variable.name}`);
        for (const from of c.envFrom ?? []) {
          if (from.configMapRef) assert.equal(from.configMapRef.name, 'genmedia');
          if (from.secretRef) assert.equal(from.secretRef.name, 'genmedia');
        }
        for (const variable of c.env ?? []) {
          const ref = variable.valueFrom?.secretKeyRef;
          if (ref) assert.ok(ref.name === 'genmedia' && secretKeys.includes(ref.key), `${variable.name}`);
        }
      }
    const api = containers(find('Deployment', 'genmedia-api'))[0] as IContainer;
    const worker = containers(find('Deployment', 'genmedia-worker'))[0] as IContainer;
    const apiConfig = loadConfig(containerEnv(api));
    assert.equal(apiConfig.role, 'api');
    assert.equal(apiConfig.port, 3000);
    const workerConfig = loadConfig(containerEnv(worker));
    assert.equal(workerConfig.role, 'worker');
    for (const config of [apiConfig, workerConfig]) {
      assert.equal(config.storage.driver, 's3');
      assert.equal(config.metrics.port, 9464);
      assert.ok(config.databaseUrl);
    }
    const migrate = containers(find('Job', 'genmedia-migrate'))[0] as IContainer;
    assert.deepEqual(migrate.command?.slice(1), ['src/cli/migrate.ts']);
    assert.ok(existsSync('src/cli/migrate.ts'));
  });

  test('selectors select: Services, the autoscaler and the disruption budget reach the pods they are for', () => {
    for (const deployment of all.filter((m) => m.kind === 'Deployment')) {
      const spec = deployment.spec as { selector: { matchLabels: Record<string, string> } };
      assert.ok(selects(spec.selector.matchLabels, podLabels(deployment)), deployment.metadata.name);
    }
    for (const service of all.filter((m) => m.kind === 'Service')) {
      const spec = service.spec as { selector: Record<string, string>; ports: Array<{ targetPort: string }> };
      const targets = all.filter((m) => m.kind === 'Deployment' && selects(spec.selector, podLabels(m)));
      assert.equal(targets.length, 1, `${service.metadata.name} selects one Deployment's pods`);
      const names = containers(targets[0] as Manifest).flatMap((c) => (c.ports ?? []).map((p) => p.name));
      for (const port of spec.ports)
        assert.ok(names.includes(port.targetPort), `${service.metadata.name}: ${port.targetPort}`);
    }
    const hpa = find('HorizontalPodAutoscaler', 'genmedia-api').spec as {
      scaleTargetRef: { kind: string; name: string };
      minReplicas: number;
      maxReplicas: number;
    };
    assert.deepEqual(hpa.scaleTargetRef, { apiVersion: 'apps/v1', kind: 'Deployment', name: 'genmedia-api' });
    assert.ok(hpa.minReplicas >= 2 && hpa.maxReplicas > hpa.minReplicas);
    const pdb = find('PodDisruptionBudget', 'genmedia-api').spec as {
      selector: { matchLabels: Record<string, string> };
    };
    assert.ok(selects(pdb.selector.matchLabels, podLabels(find('Deployment', 'genmedia-api'))));
  });

  test('probes, grace periods and resource requests', () => {
    const shutdownMs = Number(configMap.data.SHUTDOWN_TIMEOUT_MS);
    for (const m of all.filter((w) => w.kind === 'Deployment')) {
      const spec = podSpec(m);
      for (const c of spec.containers) {
        const preStopS = Number(c.lifecycle?.preStop?.exec?.command?.at(-1) ?? 0);
        assert.ok(
          (spec.terminationGracePeriodSeconds ?? 30) * 1000 > shutdownMs + preStopS * 1000,
          `${m.metadata.name}: the grace period outlasts the service's own stop`,
        );
        assert.ok(c.livenessProbe, `${m.metadata.name} has a liveness probe`);
      }
    }
    const api = containers(find('Deployment', 'genmedia-api'))[0] as IContainer;
    assert.deepEqual(api.readinessProbe?.httpGet, { path: '/readyz', port: 'http' });
    assert.deepEqual(api.livenessProbe?.httpGet, { path: '/healthz', port: 'http' });
    assert.deepEqual(
      api.ports?.find((p) => p.name === 'http')?.containerPort,
      Number(api.env?.find((e) => e.name === 'PORT')?.value),
    );
    for (const m of workloads)
      for (const c of containers(m)) {
        assert.ok(c.resources?.requests?.cpu && c.resources.requests.memory, `${m.metadata.name}: requests`);
        assert.ok(c.resources?.limits?.memory, `${m.metadata.name}: a memory limit`);
        assert.equal(c.securityContext?.allowPrivilegeEscalation, false);
      }
  });

  describe('the health paths the probes ask answer on the service', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer();
    });
    after(async () => {
      await server.close();
    });

    test('/readyz and /healthz answer 200', async () => {
      const api = containers(find('Deployment', 'genmedia-api'))[0] as IContainer;
      for (const probe of [api.readinessProbe, api.livenessProbe, api.startupProbe]) {
        const path = probe?.httpGet?.path ?? '';
        const reply = await call(server, 'GET', path);
        assert.equal(reply.status, 200, path);
      }
    });
  });
});
