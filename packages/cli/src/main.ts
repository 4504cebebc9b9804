#!/usr/bin/env node
// genmedia: the Generative Media Service from the command line. Every command prints for people
// by default and JSON with --json; a generation shows its progress on stderr and --out downloads
// its results. Exit codes: 0 success, 1 a failed generation (or another error), 2 usage (a bad
// command line or a request the API refused as invalid), 3 authentication, 4 credits.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline/promises';
import {
  ApiError,
  FailedGenerationError,
  type GenerationStatus,
  GenMedia,
  InsufficientCreditsError,
  InvalidRequestError,
  ModelNotFoundError,
  UnauthorizedError,
} from '@genmedia/sdk';
import { Command, CommanderError, Option } from 'commander';
import { DEFAULT_BASE_URL, readConfig, resolveCredentials, writeConfig } from './config.js';
import { downloadAll } from './download.js';
import { progressView } from './progress.js';
import { BodyError, type BodyOptions, bodyFrom } from './request-body.js';

// The version is the package's (versioned with the service).
const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

export const EXIT = { ok: 0, failed: 1, usage: 2, auth: 3, credits: 4 } as const;

class UsageError extends Error {}
class FailedOutcome extends Error {}

interface GlobalOptions {
  json?: boolean;
  baseUrl?: string;
  apiKey?: string;
}

const program = new Command('genmedia')
  .description('The Generative Media Service from the command line')
  .version(version)
  .addOption(new Option('--json', 'print machine-readable JSON'))
  .addOption(new Option('--base-url <url>', 'the service (default: GENMEDIA_BASE_URL, then the login)'))
  .addOption(new Option('--api-key <key>', 'an API key (default: GENMEDIA_API_KEY, then the login)'))
  .showHelpAfterError('(genmedia --help lists the commands)')
  .exitOverride();

const globals = (): GlobalOptions => program.opts<GlobalOptions>();

/** Prints a result: JSON with --json, else the human form. */
function print(value: unknown, human: () => string): void {
  process.stdout.write(globals().json ? `${JSON.stringify(value, null, 2)}\n` : `${human()}\n`);
}

async function client(): Promise<GenMedia> {
  const { baseUrl, apiKey } = await resolveCredentials();
  const key = globals().apiKey ?? apiKey;
  if (!key)
    throw new UnauthorizedError({
      status: 401,
      code: 'unauthorized',
      message: 'Not logged in: run `genmedia login` or set GENMEDIA_API_KEY',
    });
  return new GenMedia({ apiKey: key, baseUrl: globals().baseUrl ?? baseUrl });
}

interface GenerateOptions extends BodyOptions {
  out?: string;
  wait: boolean;
}

/** Submits a generation, shows its progress until it ends, downloads its results with --out. */
async function generate(
  submit: (gm: GenMedia) => (body: never) => Promise<{ generation_id: string }>,
  body: Record<string, unknown>,
  options: GenerateOptions,
): Promise<void> {
  const gm = await client();
  const accepted = await submit(gm)(body as never);
  if (!options.wait) {
    print(accepted, () => `${accepted.generation_id} queued (genmedia wait ${accepted.generation_id})`);
    return;
  }
  await waitAndReport(gm, accepted.generation_id, options.out);
}

async function waitAndReport(gm: GenMedia, id: string, out: string | undefined): Promise<void> {
  const view = progressView(process.stderr, id, false);
  let final: GenerationStatus;
  try {
    final = await gm.generations.wait(id, { onProgress: (status) => view.update(status) });
  } finally {
    view.stop();
  }
  const files = out && final.result_urls.length > 0 ? await downloadAll(gm, final, out) : [];
  print({ ...final, ...(out ? { files } : {}) }, () =>
    [
      `${id} ${final.status}: ${final.completed_items}/${final.total_items} items, ${final.credits_used} credits`,
      ...final.items.filter((item) => item.error).map((item) => `  ${item.id} failed: ${item.error}`),
      ...(files.length > 0 ? files : final.result_urls),
    ].join('\n'),
  );
  if (final.status === 'failed') throw new FailedOutcome();
}

/** The options every generation command has. */
function generationCommand(name: string, description: string): Command {
  return program
    .command(name)
    .description(description)
    .option('-m, --model <id>', 'the model (genmedia models lists them)')
    .option(
      '-s, --set <key=value>',
      'a request field; dotted keys nest (settings.duration=10); repeatable',
      collect,
      [],
    )
    .option('--body <json|@file>', 'the request body, or the file holding it (--set and flags go on top)')
    .option('--workspace <id>', 'the workspace to file the results in')
    .option('--webhook <url>', 'a URL to notify when it finishes')
    .option('-o, --out <dir>', 'download the results into this folder')
    .option('--no-wait', 'answer the generation id at once instead of waiting');
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

generationCommand('image', 'Text to image')
  .argument('<prompt>')
  .option('-n, --batch <n>', 'how many images (1-4)', Number)
  .option('-a, --aspect-ratio <ratio>', 'e.g. 16:9')
  .action(async (prompt: string, opts: GenerateOptions & { batch?: number; aspectRatio?: string }) => {
    const body = await bodyFrom(opts, { prompt, batch: opts.batch, 'settings.aspect_ratio': opts.aspectRatio });
    await generate((gm) => gm.images.generate as never, body, opts);
  });

generationCommand('edit', 'Edit an image with a prompt')
  .argument('<image_url>')
  .argument('<prompt>')
  .action(async (imageUrl: string, prompt: string, opts: GenerateOptions) => {
    await generate((gm) => gm.images.edit as never, await bodyFrom(opts, { image_url: imageUrl, prompt }), opts);
  });

generationCommand('face', 'Portraits of a described face')
  .argument('<prompt>')
  .option('-n, --batch <n>', 'how many images', Number)
  .action(async (prompt: string, opts: GenerateOptions & { batch?: number }) => {
    const body = await bodyFrom(opts, { prompt, batch: opts.batch }, { model: false });
    await generate((gm) => gm.images.generateFace as never, body, opts);
  });

generationCommand('video', 'Text (or a first frame) to video')
  .argument('<prompt>')
  .option('-d, --duration <seconds>', 'length in seconds', Number)
  .option('-a, --aspect-ratio <ratio>', 'e.g. 16:9')
  .option('-i, --image <url>', 'the first frame')
  .action(
    async (prompt: string, opts: GenerateOptions & { duration?: number; aspectRatio?: string; image?: string }) => {
      const body = await bodyFrom(opts, {
        prompt,
        first_frame_image: opts.image,
        'settings.duration': opts.duration,
        'settings.aspect_ratio': opts.aspectRatio,
      });
      await generate((gm) => gm.videos.generate as never, body, opts);
    },
  );

generationCommand('music', 'A song or an instrumental')
  .argument('<title>')
  .option('--style <style>', 'the style (genre, mood)')
  .option('--lyrics <text>', 'the lyrics')
  .option('--instrumental', 'no vocals')
  .action(
    async (title: string, opts: GenerateOptions & { style?: string; lyrics?: string; instrumental?: boolean }) => {
      const body = await bodyFrom(opts, {
        title,
        style: opts.style,
        lyrics: opts.lyrics,
        instrumental: opts.instrumental,
      });
      await generate((gm) => gm.music.generate as never, body, opts);
    },
  );

generationCommand('3d', 'Text (or an image) to a 3D model (GLB)')
  .argument('<prompt>')
  .option('-i, --image <url>', 'an image to model')
  .option('--mode <mode>', 'preview or full')
  .action(async (prompt: string, opts: GenerateOptions & { image?: string; mode?: string }) => {
    const body = await bodyFrom(opts, { prompt, init_image: opts.image, 'settings.mode': opts.mode });
    await generate((gm) => gm.models3d.generate as never, body, opts);
  });

program
  .command('speech')
  .description('Text to speech (answers the audio URL)')
  .argument('<text>')
  .requiredOption('-v, --voice <id>', 'a voice id (genmedia models --kind voice, or your own voices)')
  .option('-f, --format <format>', 'the audio format, e.g. mp3 or wav')
  .option('-s, --set <key=value>', 'a request field; repeatable', collect, [])
  .option('--body <json|@file>', 'the request body, or the file holding it')
  .option('-o, --out <dir>', 'download the audio into this folder')
  .action(async (text: string, opts: BodyOptions & { voice: string; format?: string; out?: string }) => {
    const gm = await client();
    const body = await bodyFrom(opts, { text, voice_id: opts.voice, output_format: opts.format }, { model: false });
    const answer = await gm.speech.create(body as never);
    const files = opts.out
      ? await downloadAll(gm, { generation_id: answer.generation_id, result_urls: [answer.audio_url] }, opts.out)
      : [];
    print({ ...answer, ...(opts.out ? { files } : {}) }, () => files[0] ?? answer.audio_url);
  });

const voice = program.command('voice').description('Make a voice of your own');
voice
  .command('clone')
  .description('Clone a voice from a recording (a URL of WAV or MP3 audio)')
  .argument('<audio_url>')
  .option('--name <name>', 'its name')
  .option('--description <text>', 'what it sounds like')
  .action(async (audioUrl: string, opts: { name?: string; description?: string }) => {
    const gm = await client();
    const answer = await gm.voices.clone(
      clean({ audio_url: audioUrl, name: opts.name, description: opts.description }) as never,
    );
    print(answer, () => `${answer.voice_id} ${answer.name} (${answer.type})\n${answer.audio_url}`);
  });
voice
  .command('design')
  .description('Design a voice from a description')
  .argument('<prompt>')
  .option('--name <name>', 'its name')
  .action(async (prompt: string, opts: { name?: string }) => {
    const gm = await client();
    const answer = await gm.voices.design(clean({ prompt, name: opts.name }) as never);
    print(answer, () => `${answer.voice_id} ${answer.name} (${answer.type})\n${answer.audio_url}`);
  });

program
  .command('text')
  .description('Generate text, printed as it comes')
  .argument('<prompt>')
  .option('-m, --model <id>', 'a text model (default: the service default)')
  .option('--system <prompt>', 'a system prompt')
  .option('--max-tokens <n>', 'at most this many tokens', Number)
  .option('--temperature <t>', '0-2', Number)
  .action(
    async (prompt: string, opts: { model?: string; system?: string; maxTokens?: number; temperature?: number }) => {
      const gm = await client();
      const settings = clean({ system_prompt: opts.system, max_tokens: opts.maxTokens, temperature: opts.temperature });
      const body = {
        prompt,
        ...(opts.model ? { model: opts.model } : {}),
        ...(Object.keys(settings).length > 0 ? { settings } : {}),
      };
      if (globals().json) {
        print(await gm.text.generate(body), () => '');
        return;
      }
      for await (const piece of gm.text.stream(body)) process.stdout.write(piece);
      process.stdout.write('\n');
    },
  );

program
  .command('status')
  .description("A generation's status record")
  .argument('<generation_id>')
  .action(async (id: string) => {
    const status = await (await client()).generations.status(id);
    print(
      status,
      () =>
        `${id} ${status.status}: ${status.completed_items}/${status.total_items} items\n${status.result_urls.join('\n')}`,
    );
  });

program
  .command('wait')
  .description('Wait for a generation to finish, showing its progress')
  .argument('<generation_id>')
  .option('-o, --out <dir>', 'download the results into this folder')
  .action(async (id: string, opts: { out?: string }) => {
    await waitAndReport(await client(), id, opts.out);
  });

program
  .command('list')
  .description("The team's generations, newest first")
  .option('--limit <n>', 'how many (1-100)', Number, 20)
  .option('--status <status>', 'queued, processing, completed or failed')
  .option('--kind <kind>', 'image, video, music, model3d, text, speech, voice, influencer')
  .option('--model <id>', 'one model')
  .option('--cursor <cursor>', 'the next_cursor of the page before')
  .action(async (opts: { limit: number; status?: string; kind?: string; model?: string; cursor?: string }) => {
    const page = await (await client()).generations.list(clean({ ...opts }) as never);
    print(page, () =>
      [
        ...page.data.map(
          (g) =>
            `${g.generation_id}  ${g.created_at}  ${g.status.padEnd(10)} ${g.operation.padEnd(18)} ${g.model ?? ''}  ${(g.prompt ?? '').slice(0, 50)}`,
        ),
        ...(page.next_cursor ? [`(more: genmedia list --cursor ${page.next_cursor})`] : []),
      ].join('\n'),
    );
  });

program
  .command('cancel')
  .description("Cancel a generation's unfinished items (refunded)")
  .argument('<generation_id>')
  .action(async (id: string) => {
    const status = await (await client()).generations.cancel(id);
    print(status, () => `${id} ${status.status}: ${status.failed_items} item(s) cancelled and refunded`);
  });

program
  .command('balance')
  .description("The team's credits")
  .action(async () => {
    const credits = await (await client()).billing.credits();
    print({ credits }, () => `${credits} credits`);
  });

program
  .command('plans')
  .description('The credit plans on sale')
  .action(async () => {
    const plans = await (await client()).billing.plans();
    print(plans, () =>
      plans
        .map(
          (plan) =>
            `${plan.id}  ${plan.name}: ${plan.variants.map((v) => `${v.id} ${v.price} ${v.currency}`).join(', ')}`,
        )
        .join('\n'),
    );
  });

program
  .command('top-up')
  .description('Buy credits: prints the checkout URL and opens it in a browser')
  .argument('<plan_id>')
  .option('--variant <id>', 'a variant of the plan')
  .option('--no-open', 'only print the URL')
  .action(async (planId: string, opts: { variant?: string; open: boolean }) => {
    const answer = await (await client()).billing.topUp(clean({ plan_id: planId, variant_id: opts.variant }) as never);
    print(answer, () => `Pay at: ${answer.checkoutUrl}`);
    if (opts.open && process.stdout.isTTY) openInBrowser(answer.checkoutUrl);
  });

program
  .command('models')
  .description('Every model with its kind, endpoint and price')
  .option(
    '--kind <kind>',
    'image, edit, face, video, lipsync, reference_video, talking_head, upscale, music, model_3d, text, voice',
  )
  .action(async (opts: { kind?: string }) => {
    const list = await (await client()).models.list(clean({ kind: opts.kind }) as never);
    print(list, () =>
      list.data
        .map((m) => `${m.id.padEnd(36)} ${m.kind.padEnd(16)} ${m.endpoint}${m.default ? '  (default)' : ''}`)
        .join('\n'),
    );
  });

program
  .command('login')
  .description('Store the base URL and API key for the next commands (in your config folder, 0600)')
  .option('--key <api_key>', 'the API key (asked for when not given)')
  .option('--url <base_url>', `the service (default: GENMEDIA_BASE_URL, then the stored one, then ${DEFAULT_BASE_URL})`)
  .action(async (opts: { key?: string; url?: string }) => {
    const stored = await readConfig();
    // GENMEDIA_BASE_URL overrides the stored URL here as in every command (resolveCredentials).
    const baseUrl = opts.url ?? globals().baseUrl ?? (await resolveCredentials()).baseUrl;
    const apiKey = opts.key ?? globals().apiKey ?? (await ask('API key: '));
    if (!apiKey) throw new UsageError('No API key given');
    // Checked before it is stored: a wrong key is an auth error, not a saved mistake.
    const credits = await new GenMedia({ apiKey, baseUrl, maxRetries: 1 }).billing.credits();
    const file = await writeConfig({ ...stored, base_url: baseUrl, api_key: apiKey });
    print(
      { base_url: baseUrl, config: file, credits },
      () => `Logged in to ${baseUrl} (${credits} credits); saved in ${file}`,
    );
  });

async function ask(question: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: process.stdin.isTTY });
  try {
    return (await rl.question(question)).trim();
  } finally {
    rl.close();
  }
}

function openInBrowser(url: string): void {
  const [command, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '', url]]
        : ['xdg-open', [url]];
  const child = spawn(command, args, { stdio: 'ignore', detached: true });
  child.on('error', () => undefined);
  child.unref();
}

/** An object without its undefined fields. */
function clean(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined));
}

function exitCodeOf(err: unknown): number {
  if (err instanceof CommanderError) return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
  if (
    err instanceof UsageError ||
    err instanceof BodyError ||
    err instanceof InvalidRequestError ||
    err instanceof ModelNotFoundError
  ) {
    return EXIT.usage;
  }
  if (err instanceof UnauthorizedError) return EXIT.auth;
  if (err instanceof InsufficientCreditsError) return EXIT.credits;
  return EXIT.failed;
}

function report(err: unknown): void {
  if (err instanceof CommanderError || err instanceof FailedOutcome) return; // already said
  const message = err instanceof Error ? err.message : String(err);
  if (globals().json) {
    const error =
      err instanceof ApiError
        ? { code: err.code, status: err.status, message, details: err.details, request_id: err.requestId }
        : err instanceof FailedGenerationError
          ? { code: 'failed', message }
          : { code: 'error', message };
    process.stdout.write(`${JSON.stringify({ error }, null, 2)}\n`);
    return;
  }
  process.stderr.write(`genmedia: ${message}\n`);
  if (err instanceof ApiError) for (const d of err.details) process.stderr.write(`  ${d.field}: ${d.message}\n`);
  if (err instanceof InsufficientCreditsError)
    process.stderr.write('  (genmedia plans, then genmedia top-up <plan_id>)\n');
}

try {
  await program.parseAsync(process.argv);
} catch (err) {
  report(err);
  process.exitCode = exitCodeOf(err);
}
