// The simulator's text generator: real token counts (o200k_base), deterministic answers that
// relate to the prompt and visibly follow the system prompt, and truncation at max_tokens.
// Standalone (no database): node --test test/simulator-text.test.ts
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { encodeChat } from 'gpt-tokenizer/model/gpt-4o';
import { countPromptTokens, countTokens } from '../src/lib/tokens.ts';
import { generateText, type TextGenerationRequest } from '../src/render/text.ts';

const BASE: TextGenerationRequest = {
  prompt: 'Explain how photosynthesis works in plants.',
  model: 'gpt-4o',
  temperature: 0.7,
  maxTokens: 1000,
};

function gen(overrides: Partial<TextGenerationRequest> = {}): ReturnType<typeof generateText> {
  return generateText({ ...BASE, ...overrides });
}

describe('simulator text', () => {
  test('countTokens gives real o200k_base counts and never throws on special-token text', () => {
    assert.equal(countTokens(''), 0);
    assert.equal(countTokens('Hello, world!'), 4);
    assert.equal(countTokens('hello world'), 2);
    assert.ok(countTokens('The quick brown fox jumps over the lazy dog.') === 10);
    // Special-token strings in user text are ordinary text (several tokens), not an error.
    assert.ok(countTokens('<|endoftext|>') > 1);
    assert.ok(countTokens('日本語のテキスト') > 0);
  });

  test('prompt_tokens follow the chat format overhead (matches encodeChat for gpt-4o)', () => {
    const system = 'You are a helpful assistant.';
    const prompt = 'What is the capital of France?';
    const expected = encodeChat([
      { role: 'system', content: system },
      { role: 'user', content: prompt },
    ]).length;
    assert.equal(countPromptTokens(prompt, system), expected);
    assert.equal(countPromptTokens(prompt), encodeChat([{ role: 'user', content: prompt }]).length);
    const out = gen({ prompt, systemPrompt: system });
    assert.equal(out.usage.prompt_tokens, expected);
    assert.equal(out.usage.completion_tokens, countTokens(out.text));
    assert.equal(out.usage.total_tokens, out.usage.prompt_tokens + out.usage.completion_tokens);
  });

  test('deterministic in its inputs; temperature sets how much the seed matters', () => {
    assert.deepEqual(gen({ seed: 3 }), gen({ seed: 3 }));
    // Temperature 0: always the most likely wording, whatever the seed.
    const cold = new Set([1, 2, 3, 4, 5].map((seed) => gen({ temperature: 0, seed }).text));
    assert.equal(cold.size, 1);
    // Higher temperature: the seed changes word choice.
    const warm = new Set([1, 2, 3, 4, 5].map((seed) => gen({ temperature: 1.2, seed }).text));
    assert.ok(warm.size >= 3, `${warm.size} distinct answers over 5 seeds`);
    assert.notEqual(gen({ model: 'gpt-4o-mini', seed: 1 }).text, gen({ model: 'gpt-4o', seed: 1 }).text);
  });

  test('answers relate visibly to the prompt', () => {
    const explain = gen().text;
    assert.match(explain, /photosynthesis/i);
    assert.match(explain, /plants/i);
    assert.ok(explain.split('\n\n').length >= 4, 'a structured answer of several paragraphs');

    const question = gen({ prompt: 'What is the capital of France?' }).text;
    assert.match(question, /the capital of France/);

    const story = gen({ prompt: 'Write a short story about a lighthouse keeper and a lost whale' }).text;
    assert.match(story, /Lighthouse Keeper/);
    assert.match(story, /lost whale/);

    const list = gen({ prompt: 'Give me 7 tips for improving sleep quality' }).text;
    assert.equal(list.match(/^\d+\. /gm)?.length, 7);
    assert.match(list, /sleep quality/);

    const code = gen({ prompt: 'Write a Python function that removes duplicates from a list' }).text;
    assert.match(code, /```python\n/);
    assert.match(code, /def remove_duplicates\(/);

    const ts = gen({ prompt: 'Write a TypeScript function that removes duplicates from an array' }).text;
    assert.match(ts, /```typescript\n[\s\S]*export function removeDuplicates</);

    assert.match(gen({ prompt: 'What is 12 * (3 + 4)?' }).text, /= 84$/);
    assert.match(gen({ prompt: 'hello' }).text, /help/i);

    const email = gen({ prompt: 'Draft an email to my landlord about the broken heating' }).text;
    assert.match(email, /^Subject: The broken heating/);
    assert.match(email, /Landlord/);

    const passage =
      'Summarize this: The city council met on Tuesday to discuss the new park. Residents voiced strong support for more green space. However, some members worried about maintenance costs. The council agreed to commission a study on funding options.';
    const summary = gen({ prompt: passage }).text;
    assert.match(summary, /council/);
    assert.ok(summary.length < passage.length * 1.2);
  });

  test('the system prompt is honoured: JSON, JSON shape, brevity, bullets, persona, language, caps', () => {
    const json = JSON.parse(gen({ systemPrompt: 'Respond only with JSON.' }).text) as Record<string, unknown>;
    assert.equal(typeof json.answer, 'string');
    assert.match(String(json.topic), /photosynthesis/);

    const shaped = JSON.parse(
      gen({
        prompt: 'Describe the benefits of electric cars',
        systemPrompt: 'Return JSON like {"title": "...", "tags": ["..."], "score": 0.5, "summary": "..."}',
      }).text,
    ) as { title: string; tags: string[]; score: number; summary: string };
    assert.deepEqual(Object.keys(shaped), ['title', 'tags', 'score', 'summary']);
    assert.match(shaped.title, /electric cars/);
    assert.ok(Array.isArray(shaped.tags) && shaped.tags.includes('electric cars'));
    assert.ok(shaped.score > 0 && shaped.score < 1);

    const long = gen();
    const brief = gen({ systemPrompt: 'Be brief.' });
    assert.ok(brief.usage.completion_tokens < long.usage.completion_tokens / 2, 'a brief answer is much shorter');
    assert.ok(brief.usage.completion_tokens <= 60);

    const bullets = gen({ systemPrompt: 'Answer using bullet points.' }).text;
    assert.ok(bullets.split('\n').every((line) => line.startsWith('- ')));

    assert.match(gen({ systemPrompt: 'You are a pirate.' }).text, /^As a pirate/);
    assert.doesNotMatch(gen({ systemPrompt: 'You are a helpful assistant.' }).text, /^As /);
    assert.match(gen({ systemPrompt: 'Always answer in French.' }).text, /Voici|Bonne question|Pour comprendre/);
    assert.match(gen({ systemPrompt: 'Responde en español.' }).text, /photosynthesis/);
    assert.match(gen({ systemPrompt: 'Respond in Spanish.' }).text, /Aquí|Buena pregunta|Para entender/);

    const caps = gen({ systemPrompt: 'Reply in ALL CAPS.' }).text;
    assert.equal(caps, caps.toUpperCase());

    const limited = gen({ systemPrompt: 'Answer in under 20 words.' }).text;
    assert.ok(limited.split(/\s+/).length <= 20);
  });

  test('the completion stops at maxTokens with finishReason length', () => {
    const full = gen();
    assert.equal(full.finishReason, 'stop');
    for (const maxTokens of [1, 5, 17, full.usage.completion_tokens - 1]) {
      const cut = gen({ maxTokens });
      assert.equal(cut.finishReason, 'length');
      assert.equal(cut.usage.completion_tokens, maxTokens);
      assert.ok(countTokens(cut.text) <= maxTokens + 1);
      assert.ok(full.text.startsWith(cut.text.slice(0, Math.max(0, cut.text.length - 2))), 'a prefix of the answer');
    }
    const exact = gen({ maxTokens: full.usage.completion_tokens });
    assert.equal(exact.finishReason, 'stop');
    assert.equal(exact.text, full.text);
  });

  test('large prompts are handled quickly', () => {
    const prompt = `Summarize the following report:\n${'The committee reviewed the budget and found several issues with the spending plan. '.repeat(2500)}`;
    const started = performance.now();
    const out = gen({ prompt, systemPrompt: `{${'{'.repeat(5000)} json` });
    assert.ok(performance.now() - started < 3000);
    assert.ok(out.usage.prompt_tokens > 30_000);
    assert.ok(out.text.length > 0);
  });
});
