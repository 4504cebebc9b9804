// Deterministic text generation for the simulator provider. There is no language model:
// the answer is assembled from templates around the request's own key phrases, so it reads
// as a coherent, on-topic response while being a pure function of its inputs.
//
//  - The request is classified (greeting, arithmetic, question, story, poem, email, list,
//    code, summary, names/slogans, explanation) and its topic and key terms are extracted.
//  - The system prompt is honoured visibly: JSON (following a JSON example's keys when it
//    gives one), brevity, bullet points, a persona ("You are a pirate"), a reply language
//    (French, Spanish, German), ALL CAPS.
//  - Temperature sets word-choice variety: at 0 every choice is the first (most "likely")
//    option and the seed does not matter; higher temperatures draw from more options with a
//    PRNG seeded by SHA-256 of (prompt, system prompt, model, temperature, seed).
//  - Token counts are real, from gpt-tokenizer's o200k_base encoding (GPT-4o and later).
//    The answer is cut at `maxTokens` completion tokens (finishReason 'length').
import { decode, encode } from 'gpt-tokenizer/encoding/o200k_base';
import { countPromptTokens, ENCODE_OPTIONS } from '../lib/tokens.ts';
import { sha256 } from './random.ts';

export interface TextGenerationRequest {
  prompt: string;
  systemPrompt?: string;
  model: string;
  /** 0..2 */
  temperature: number;
  maxTokens: number;
  seed?: number;
}

export interface TextGenerationResult {
  text: string;
  finishReason: 'stop' | 'length';
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

/** Special-token strings (such as "<|endoftext|>") in user text are counted as ordinary text. */
// ---------------------------------------------------------------------------------------
// Seeded choices.

/** mulberry32 from 4 bytes of a digest. */
function makeRng(key: string): () => number {
  let a = sha256(key).readUInt32LE(0);
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Chooser {
  /** One of `options`: the first at temperature 0, drawn from more of them as temperature rises. */
  pick<T>(options: readonly T[]): T;
  /**
   * Like `pick`, but avoids the options already in `used` (and records the choice), so a
   * list of sentences does not repeat itself; at temperature 0 it goes through them in order.
   */
  pickFresh<T>(options: readonly T[], used: Set<number>): T;
  /** An integer in [lo, hi]: the middle at temperature 0. */
  int(lo: number, hi: number): number;
}

function chooser(rng: () => number, temperature: number): Chooser {
  const t = Math.min(2, Math.max(0, temperature));
  const span = (n: number): number => Math.max(1, Math.min(n, Math.round(1 + t * (n - 1))));
  return {
    pick<T>(options: readonly T[]): T {
      const r = rng(); // always drawn, so later choices do not shift with temperature
      return options[t === 0 ? 0 : Math.floor(r * span(options.length))] as T;
    },
    pickFresh<T>(options: readonly T[], used: Set<number>): T {
      const r = rng();
      if (used.size >= options.length) used.clear();
      const free = options.map((_, i) => i).filter((i) => !used.has(i));
      const i = free[t === 0 ? 0 : Math.floor(r * span(free.length))] ?? 0;
      used.add(i);
      return options[i] as T;
    },
    int(lo: number, hi: number): number {
      const r = rng();
      if (t === 0) return Math.round((lo + hi) / 2);
      return lo + Math.floor(r * (hi - lo + 1));
    },
  };
}

// ---------------------------------------------------------------------------------------
// Understanding the request.

const STOPWORDS = new Set(
  (
    'a an the and or but if then else of to in on at by for with about into onto from as is are was were be been ' +
    'being do does did doing have has had having i me my we our you your he she it its they them their this that ' +
    'these those what which who whom whose why how when where there here can could should would will shall may ' +
    'might must please just some any all very really also so than too up out not no yes more most few many much ' +
    'each every other such own same one two three four five six seven eight nine ten hey hi hello thanks thank ' +
    'based way ways kind sort something things thing short long brief quick simple good best new detailed ' +
    'paragraph sentence sentences words word following below above however after before over under between ' +
    'during while next then again there their whether ever never always often still even only well near ' +
    'around across behind beyond inside outside within without toward towards along among upon via per'
  ).split(/\s+/),
);

/** Verbs that name the request or the action rather than its subject. */
const VERBS = new Set(
  (
    'tell show give write create make generate compose draft explain describe list summarize summarise provide ' +
    'help need needs want wants like get gets let us use uses using work works working affect affects affecting ' +
    'improve improves improving remove removes removing take takes find finds happen happens mean means compare ' +
    'learn start build keep go goes become becomes cause causes change changes choose think know feel see say ' +
    'says try turn run runs read suggest brainstorm come implement convert calculate compute solve answer ' +
    'respond reply translate rewrite edit fix check define outline plan list prepare design'
  ).split(/\s+/),
);

/** Nouns that name the kind of answer rather than its subject. */
const FORM_NOUNS = new Set(
  (
    'story stories tale fable poem poems haiku verse limerick sonnet lyrics email e-mail letter message list tips ' +
    'ideas idea reasons examples names name titles title slogans slogan taglines tagline headlines headline ' +
    'function code script program snippet class summary overview explanation essay article post steps items ' +
    'facts questions options suggestions points bullet bullets answer response query regex algorithm ' +
    'python javascript typescript sql bash shell golang rust js ts node'
  ).split(/\s+/),
);

type Intent =
  | 'greeting'
  | 'arithmetic'
  | 'story'
  | 'poem'
  | 'email'
  | 'list'
  | 'code'
  | 'summary'
  | 'names'
  | 'yesno'
  | 'question'
  | 'explain';

interface Analysis {
  intent: Intent;
  /** The request's subject, as a phrase from the prompt ("photosynthesis in plants"). */
  topic: string;
  /** Distinct key phrases (runs of content words), in prompt order. */
  terms: string[];
  /** For emails: whom it is to. */
  recipient?: string;
  /** Requested item count ("5 ideas"). */
  count?: number;
  /** Programming language for code. */
  codeLanguage?: string;
  /** Text to summarise, when the prompt includes one. */
  passage?: string;
  /** Result of an arithmetic expression. */
  arithmetic?: { expression: string; value: number };
}

const NUMBER_WORDS: Record<string, number> = {
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
};

const CODE_LANGUAGES: Array<[RegExp, string]> = [
  [/\btypescript\b|\bts\b/i, 'typescript'],
  [/\bjavascript\b|\bnode(\.js)?\b|\bjs\b/i, 'javascript'],
  [/\bpython\b/i, 'python'],
  [/\bsql\b|\bquery\b/i, 'sql'],
  [/\bbash\b|\bshell\b/i, 'bash'],
  [/\bgo(lang)?\b/i, 'go'],
  [/\brust\b/i, 'rust'],
];

const LANGUAGE_NAMES: Record<string, string> = {
  typescript: 'TypeScript',
  javascript: 'JavaScript',
  python: 'Python',
  sql: 'SQL',
  bash: 'Bash',
  go: 'Go',
  rust: 'Rust',
};

/** Evaluates + - * / ^ and parentheses over numbers; undefined for anything else. */
function evaluateArithmetic(expression: string): number | undefined {
  const tokens = expression.match(/\d+(?:\.\d+)?|[-+*/^()]/g);
  if (!tokens || tokens.join('') !== expression.replace(/\s+/g, '')) return undefined;
  let pos = 0;
  const peek = (): string | undefined => tokens[pos];
  const primary = (): number => {
    const t = tokens[pos++];
    if (t === '(') {
      const v = sum();
      if (tokens[pos++] !== ')') throw new Error('unbalanced');
      return v;
    }
    if (t === '-') return -primary();
    if (t === undefined || !/^\d/.test(t)) throw new Error('unexpected');
    return Number(t);
  };
  const power = (): number => {
    const base = primary();
    if (peek() === '^') {
      pos++;
      return base ** power();
    }
    return base;
  };
  const product = (): number => {
    let v = power();
    while (peek() === '*' || peek() === '/') v = tokens[pos++] === '*' ? v * power() : v / power();
    return v;
  };
  const sum = (): number => {
    let v = product();
    while (peek() === '+' || peek() === '-') v = tokens[pos++] === '+' ? v + product() : v - product();
    return v;
  };
  try {
    const value = sum();
    return pos === tokens.length && Number.isFinite(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Runs of content words ("lighthouse keeper", "electric cars"), case kept, in prompt order. */
function keyPhrases(text: string): string[] {
  const tokens = text.match(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu) ?? [];
  const phrases: string[] = [];
  const seen = new Set<string>();
  let run: string[] = [];
  const flush = (): void => {
    if (run.length > 0) {
      const phrase = run.slice(-3).join(' ');
      if (!seen.has(phrase.toLowerCase())) {
        seen.add(phrase.toLowerCase());
        phrases.push(phrase);
      }
    }
    run = [];
  };
  tokens.forEach((raw, i) => {
    const token = raw.replace(/['’]s$/i, '');
    const lower = token.toLowerCase();
    if (STOPWORDS.has(lower) || VERBS.has(lower) || FORM_NOUNS.has(lower) || lower.length < 2 || /^\d+$/.test(lower)) {
      flush();
      return;
    }
    // A capital only because it starts the prompt is not part of the word.
    const word = i === 0 && /^\p{Lu}\p{Ll}+$/u.test(token) ? lower : token;
    run.push(word);
  });
  flush();
  return phrases.slice(0, 6);
}

const LEADING_REQUEST =
  /^(?:(?:please|kindly|can you|could you|would you|will you|i need you to|i want you to|help me|i'd like you to|i'd like|i want)\s+)*(?:(?:write|create|make|generate|compose|draft|give me|tell me|show me|explain|describe|summari[sz]e|list|provide|suggest|come up with|brainstorm|implement|build|what(?:'s| is| are| was| were)?|why(?: is| are| do| does| did)?|how(?: do| does| did| can| to| is| are)?|when(?: is| was| did| do| does)?|who(?: is| was| are)?|where(?: is| are| do| does)?|which(?: is| are)?)\s+)?(?:(?:me|us)\s+)?/i;
const FORM_PREFIX =
  /^(?:(?:a|an|the|some|my|our)\s+)?(?:(?:\d+|two|three|four|five|six|seven|eight|nine|ten|short|brief|quick|simple|detailed|funny|catchy|creative|good|great|new|few)\s+)*(?:(?:python|javascript|typescript|sql|bash|shell|go|golang|rust|node(?:\.js)?|js|ts)\s+)?(?:story|tale|poem|haiku|limerick|sonnet|email|e-mail|letter|list|summary|overview|explanation|function|script|program|snippet|query|class|regex|essay|article|post|tips|ideas|ways|reasons|examples|names|titles|slogans|taglines|headlines|steps|facts|suggestions)(?:\s+(?:in|using)\s+\w+)?(?:\s+(?:about|on|of|for|that|to|explaining|describing|regarding|which))?\s+/i;

/** The prompt's subject as a short phrase, with request words and trailing punctuation removed. */
function topicPhrase(head: string): string {
  const line = (head.split('\n')[0] ?? head).replace(/\s+/g, ' ').trim();
  let topic = line.replace(LEADING_REQUEST, '');
  topic = topic.replace(FORM_PREFIX, '');
  topic = topic.replace(/[?.!:;,\s]+$/, '');
  if (topic.length > 90) {
    const cut = topic.slice(0, 90);
    topic = cut.slice(0, Math.max(cut.lastIndexOf(' '), 40));
  }
  if (/^\p{Lu}\p{Ll}/u.test(topic) && !/^\p{Lu}\p{Ll}+\s+\p{Lu}/u.test(topic))
    topic = topic.charAt(0).toLowerCase() + topic.slice(1);
  return topic || line.replace(/[?.!]+$/, '') || 'your request';
}

function analyze(prompt: string): Analysis {
  const text = prompt.trim();
  const firstLine = (text.split('\n')[0] ?? '').toLowerCase();
  // A passage to work on: after a colon or the first line break, when it is long enough.
  const split = /[:\n]/.exec(text);
  const passage = split && text.length - split.index > 120 ? text.slice(split.index + 1).trim() : undefined;
  const head = passage && split ? text.slice(0, split.index) : text;
  const topic = topicPhrase(head);
  const terms = keyPhrases(topic === 'your request' ? head : topic);
  if (terms.length === 0) terms.push(...keyPhrases(head));

  const countMatch =
    /\b(\d{1,2}|two|three|four|five|six|seven|eight|nine|ten)\s+(?:[\p{L}-]+\s+){0,2}?(ideas|tips|ways|reasons|examples|names|steps|items|things|facts|questions|titles|slogans|taglines|headlines|options|suggestions|bullet points|points)\b/iu.exec(
      head,
    );
  const count = countMatch
    ? Math.min(20, Number(countMatch[1]) || NUMBER_WORDS[(countMatch[1] ?? '').toLowerCase()] || 5)
    : undefined;

  const expression = /(?:what(?:'s| is)|calculate|compute|evaluate|solve)?\s*([-+*/^().\d\s]{3,})$/i.exec(
    head.replace(/[=?]\s*$/, '').trim(),
  );
  if (expression?.[1] && /\d\s*[-+*/^]\s*[\d(]/.test(expression[1])) {
    const value = evaluateArithmetic(expression[1].trim());
    if (value !== undefined) {
      return { intent: 'arithmetic', topic, terms, arithmetic: { expression: expression[1].trim(), value } };
    }
  }
  const base = { topic, terms, ...(count ? { count } : {}), ...(passage ? { passage } : {}) };
  if (/^(hi|hello|hey|good (morning|afternoon|evening)|greetings|yo)\b[\s!.,]*\w{0,12}[\s!.?]*$/i.test(text)) {
    return { ...base, intent: 'greeting' };
  }
  if (/\b(summari[sz]e|summary|tl;?dr|key takeaways)\b/.test(firstLine)) return { ...base, intent: 'summary' };
  const codeLanguage = CODE_LANGUAGES.find(([re]) => re.test(firstLine))?.[1];
  const wantsCode = /\b(code|function|script|program|class|snippet|implement|regex|algorithm)\b/.test(firstLine);
  if (wantsCode || (codeLanguage && /\b(write|create|implement|build)\b/.test(firstLine))) {
    return { ...base, intent: 'code', codeLanguage: codeLanguage ?? 'python' };
  }
  if (/\b(story|tale|fable)\b/.test(firstLine)) return { ...base, intent: 'story' };
  if (/\b(poem|haiku|verse|limerick|sonnet|lyrics)\b/.test(firstLine)) return { ...base, intent: 'poem' };
  if (/\b(e-?mail|letter)\b/.test(firstLine)) {
    const to =
      /\bto\s+(?:my|our|the|a|an)?\s*([\p{L}\s]{2,30}?)\s+(?:about|regarding|concerning|asking|to|on)\b/iu.exec(head);
    const about = /\b(?:about|regarding|concerning|asking)\s+(.+?)[.?!]*$/i.exec(head.split('\n')[0] ?? head);
    const subject = about?.[1]?.trim();
    return {
      ...base,
      intent: 'email',
      ...(subject ? { topic: subject, terms: keyPhrases(subject) } : {}),
      ...(to?.[1] ? { recipient: to[1].trim() } : {}),
    };
  }
  if (
    /\b(names?|titles?|slogans?|taglines?|headlines?)\b/.test(firstLine) &&
    /\b(suggest|give|come up|generate|brainstorm|ideas?|list|\d+|some|few)\b/.test(firstLine)
  ) {
    return { ...base, intent: 'names' };
  }
  if (count || /\b(list|ideas|tips|steps|reasons|ways to|examples of|bullet)\b/.test(firstLine)) {
    return { ...base, intent: 'list' };
  }
  if (/^(is|are|can|could|should|does|do|did|will|would|was|were|has|have)\b/.test(firstLine)) {
    return { ...base, intent: 'yesno' };
  }
  if (/^(what|why|how|when|who|where|which)\b/.test(firstLine) || firstLine.trim().endsWith('?')) {
    return { ...base, intent: 'question' };
  }
  return { ...base, intent: 'explain' };
}

// ---------------------------------------------------------------------------------------
// What the system prompt asks for.

type ReplyLanguage = 'en' | 'fr' | 'es' | 'de';

interface Directives {
  json: boolean;
  /** A JSON example from the instructions, whose shape the answer follows. */
  jsonTemplate?: unknown;
  brief: boolean;
  bullets: boolean;
  persona?: string;
  language: ReplyLanguage;
  upper: boolean;
  wordLimit?: number;
}

const GENERIC_PERSONAS =
  /^(?:a |an )?(?:helpful |friendly |harmless |honest |smart |useful |concise |expert |knowledgeable )*(?:ai |)(?:assistant|language model|chatbot|bot|ai|model)\b/i;

function directives(systemPrompt: string, prompt: string): Directives {
  const s = systemPrompt.toLowerCase();
  const both = `${s}\n${prompt.toLowerCase()}`;
  const d: Directives = {
    json: /\bjson\b/.test(s) || /\b(respond|answer|reply|return|output|format)\b[^.\n]{0,30}\bjson\b/.test(both),
    brief:
      /\b(brief|briefly|concise|concisely|short|succinct|terse|one sentence|single sentence|few words|one line|tl;?dr|keep it short|be brief)\b/.test(
        s,
      ),
    bullets: /\b(bullet|bulleted|bullet points|markdown list)\b/.test(s),
    language: 'en',
    upper: /\b(all caps|all capital|uppercase|upper case|capital letters)\b/.test(s),
  };
  const limit =
    /\b(?:under|fewer than|less than|at most|no more than|maximum of|max(?:imum)?|within)\s+(\d{1,3})\s+words\b/.exec(
      both,
    );
  if (limit) d.wordLimit = Math.max(1, Number(limit[1]));
  const lang =
    /\b(?:answer|respond|reply|write|speak|always use|use|only)\b[^.\n]{0,25}?\b(?:in\s+)?(french|fran[cç]ais|spanish|espa[nñ]ol|german|deutsch)\b/.exec(
      both,
    );
  if (lang?.[1]) {
    const l = lang[1];
    d.language = l.startsWith('fr') ? 'fr' : l.startsWith('sp') || l.startsWith('es') ? 'es' : 'de';
  }
  const persona = /\byou are (?:now )?((?:a|an|the)\s+[^.,;\n!]{2,48}|[a-z][^.,;\n!]{2,40})/i.exec(systemPrompt);
  if (persona?.[1] && !GENERIC_PERSONAS.test(persona[1].trim())) {
    d.persona = persona[1].trim().replace(/\s+(?:who|that|which|and|with)\b.*$/i, '');
  }
  if (d.json) {
    const example = extractJsonExample(systemPrompt) ?? extractJsonExample(prompt);
    if (example !== undefined) d.jsonTemplate = example;
  }
  return d;
}

/** The first balanced {...} in `text` (its first 20,000 characters, 20 candidates) that parses as JSON. */
function extractJsonExample(full: string): unknown {
  const text = full.slice(0, 20_000);
  let tries = 0;
  for (let start = text.indexOf('{'); start >= 0 && tries < 20; start = text.indexOf('{', start + 1), tries++) {
    let depth = 0;
    for (let i = start; i < text.length; i++) {
      const ch = text[i];
      if (ch === '{') depth++;
      else if (ch === '}') {
        depth--;
        if (depth === 0) {
          const candidate = text.slice(start, i + 1);
          for (const source of [candidate, candidate.replace(/'/g, '"')]) {
            try {
              const value: unknown = JSON.parse(source);
              if (value && typeof value === 'object') return value;
            } catch {
              // not JSON; try the next form or the next brace
            }
          }
          break;
        }
      }
    }
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------
// Writing.

interface Phrasebook {
  open: readonly string[];
  question: readonly string[];
  point: readonly string[];
  close: readonly string[];
  aspects: readonly string[];
  yes: readonly string[];
  tips: readonly string[];
  persona: string;
}

const PHRASES: Record<ReplyLanguage, Phrasebook> = {
  en: {
    open: [
      'Here is an overview of {topic}.',
      "Sure! Let's break down {topic}.",
      '{Topic} is easiest to understand in a few parts.',
      'Here is how I would think about {topic}.',
      'Happy to help with {topic}. A few points matter most.',
    ],
    question: [
      'Good question! When it comes to {topic}, a few points matter most.',
      'The short answer: {topic} depends on a handful of factors. Here they are.',
      "Let's look at {topic} step by step.",
      'There are a few ways to look at {topic}.',
    ],
    point: [
      '{Term}: this is a {key} part of {topic}, and it shapes most of what follows.',
      '{Term}: looking at {term} first makes the rest much easier to follow.',
      '{Term}: in practice, this is where most of the {interesting} details show up.',
      '{Term}: it is worth checking how {term} connects to the other pieces.',
      '{Term}: it is often overlooked, but it has a {clear} effect on the outcome.',
      '{Term}: small changes here tend to have {clear} consequences elsewhere.',
    ],
    close: [
      'In short, {topic} comes down to how these pieces fit together.',
      'Taken together, these points give a solid picture of {topic}.',
      'If you would like, I can go deeper into {term} or give concrete examples.',
      'Let me know which part you would like to explore next.',
    ],
    aspects: [
      'the context',
      'the main idea',
      'how it works in practice',
      'why it matters',
      'common pitfalls',
      'next steps',
    ],
    yes: [
      'Short answer: yes, in most cases, although it depends on the details.',
      'It depends, but generally yes, as long as the basics are in place.',
      'Usually yes, with a few exceptions worth knowing.',
      'Not always. It holds in some situations but not in others.',
    ],
    tips: [
      'Set a clear, specific goal for {topic} and write it down.',
      'Build a simple daily routine around {term}.',
      'Start small: pick one part of {topic} and act on it today.',
      'Track your progress with {term} for two weeks, then review it.',
      'Remove one obstacle that keeps getting in the way of {topic}.',
      'Ask someone experienced with {term} for honest feedback.',
      'Review what worked, and adjust your approach to {term}.',
      'Keep notes on {term}: patterns become obvious over time.',
      'Make the next step easy, so that {topic} becomes a habit.',
      'Celebrate small wins along the way to keep your motivation up.',
    ],
    persona: 'As {role}, here is my take.',
  },
  fr: {
    open: [
      'Voici un aperçu de {topic}.',
      'Bonne question. Voyons {topic} en détail.',
      'Pour comprendre {topic}, il faut distinguer plusieurs aspects.',
    ],
    question: [
      'Bonne question ! Pour {topic}, quelques points comptent avant tout.',
      'Voyons {topic} étape par étape.',
    ],
    point: [
      '{Term} : c’est un élément {key} de {topic}.',
      '{Term} : commencer par là rend le reste plus clair.',
      '{Term} : c’est souvent là que se trouvent les détails {interesting}.',
      '{Term} : cela a un effet {clear} sur le résultat.',
    ],
    close: [
      'En résumé, {topic} dépend de la façon dont ces éléments s’articulent.',
      'Je peux approfondir {term} si vous le souhaitez.',
    ],
    aspects: ['le contexte', 'l’idée principale', 'le fonctionnement', 'les enjeux'],
    yes: ['Oui, dans la plupart des cas, même si cela dépend des détails.', 'Cela dépend, mais en général, oui.'],
    tips: [
      'Fixez un objectif clair pour {topic}.',
      'Commencez petit : un aspect de {term} aujourd’hui.',
      'Suivez vos progrès avec {term} pendant deux semaines.',
      'Demandez l’avis d’une personne expérimentée.',
      'Faites le point et ajustez votre approche de {term}.',
    ],
    persona: 'En tant que {role}, voici mon avis.',
  },
  es: {
    open: [
      'Aquí tienes un resumen de {topic}.',
      'Buena pregunta. Veamos {topic} paso a paso.',
      'Para entender {topic}, conviene separarlo en varias partes.',
    ],
    question: ['¡Buena pregunta! Sobre {topic}, hay algunos puntos clave.', 'Veamos {topic} paso a paso.'],
    point: [
      '{Term}: es una parte {key} de {topic}.',
      '{Term}: empezar por aquí hace que el resto sea más fácil de seguir.',
      '{Term}: aquí suelen aparecer los detalles más {interesting}.',
      '{Term}: tiene un efecto {clear} en el resultado.',
    ],
    close: ['En resumen, {topic} depende de cómo encajan estas piezas.', 'Si quieres, puedo profundizar en {term}.'],
    aspects: ['el contexto', 'la idea principal', 'cómo funciona', 'por qué importa'],
    yes: ['Sí, en la mayoría de los casos, aunque depende de los detalles.', 'Depende, pero en general, sí.'],
    tips: [
      'Define un objetivo claro para {topic}.',
      'Empieza poco a poco: un aspecto de {term} hoy mismo.',
      'Registra tu progreso con {term} durante dos semanas.',
      'Pide la opinión de alguien con experiencia.',
      'Revisa lo que funcionó y ajusta tu enfoque de {term}.',
    ],
    persona: 'Como {role}, esta es mi opinión.',
  },
  de: {
    open: [
      'Hier ist ein Überblick über {topic}.',
      'Gute Frage. Schauen wir uns {topic} genauer an.',
      'Um {topic} zu verstehen, hilft es, mehrere Teile zu betrachten.',
    ],
    question: [
      'Gute Frage! Bei {topic} kommt es auf einige Punkte an.',
      'Gehen wir {topic} Schritt für Schritt durch.',
    ],
    point: [
      '{Term}: ein {key} Teil von {topic}.',
      '{Term}: wer hier beginnt, versteht den Rest leichter.',
      '{Term}: hier zeigen sich oft die {interesting} Details.',
      '{Term}: das hat einen {clear} Einfluss auf das Ergebnis.',
    ],
    close: [
      'Kurz gesagt hängt {topic} davon ab, wie diese Teile zusammenspielen.',
      'Wenn Sie möchten, kann ich {term} genauer erklären.',
    ],
    aspects: ['der Kontext', 'die Grundidee', 'die Funktionsweise', 'die Bedeutung'],
    yes: ['Ja, in den meisten Fällen, auch wenn es auf die Details ankommt.', 'Das kommt darauf an, aber meistens ja.'],
    tips: [
      'Setzen Sie sich ein klares Ziel für {topic}.',
      'Fangen Sie klein an: ein Aspekt von {term}, noch heute.',
      'Verfolgen Sie Ihre Fortschritte mit {term} zwei Wochen lang.',
      'Holen Sie sich Feedback von jemandem mit Erfahrung.',
      'Prüfen Sie, was funktioniert hat, und passen Sie {term} an.',
    ],
    persona: 'Als {role} sehe ich das so.',
  },
};

const SYNONYMS: Record<ReplyLanguage, Record<string, readonly string[]>> = {
  en: {
    key: ['key', 'central', 'crucial', 'fundamental', 'essential'],
    interesting: ['interesting', 'important', 'subtle', 'practical', 'surprising'],
    clear: ['clear', 'noticeable', 'real', 'measurable', 'lasting'],
  },
  fr: {
    key: ['essentiel', 'central', 'clé'],
    interesting: ['intéressants', 'importants', 'subtils'],
    clear: ['net', 'réel'],
  },
  es: {
    key: ['clave', 'central', 'esencial'],
    interesting: ['interesantes', 'importantes', 'sutiles'],
    clear: ['claro', 'real'],
  },
  de: {
    key: ['zentraler', 'wichtiger', 'wesentlicher'],
    interesting: ['interessanten', 'wichtigen', 'feinen'],
    clear: ['klaren', 'deutlichen'],
  },
};

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

class Writer {
  private readonly c: Chooser;
  private readonly a: Analysis;
  readonly lang: ReplyLanguage;
  private readonly used = new Map<string, Set<number>>();

  constructor(c: Chooser, a: Analysis, lang: ReplyLanguage) {
    this.c = c;
    this.a = a;
    this.lang = lang;
  }

  fill(template: string, term?: string): string {
    const t = term ?? this.a.terms[0] ?? this.a.topic;
    const syn = SYNONYMS[this.lang];
    return template
      .replace(/\{topic\}/g, this.a.topic)
      .replace(/\{Topic\}/g, capitalize(this.a.topic))
      .replace(/\{term\}/g, t)
      .replace(/\{Term\}/g, capitalize(t))
      .replace(/\{(key|interesting|clear)\}/g, (_, k: string) => this.c.pick(syn[k] ?? [k]));
  }

  /** A sentence of `kind`, not repeating earlier sentences of that kind. */
  phrase(kind: Exclude<keyof Phrasebook, 'persona'>, term?: string): string {
    const used = this.used.get(kind) ?? new Set<number>();
    this.used.set(kind, used);
    return this.fill(this.c.pickFresh(PHRASES[this.lang][kind], used), term);
  }

  /** The subjects of the body: the prompt's key phrases, then generic aspects when it has few. */
  subjects(n: number): string[] {
    const out = this.a.terms.slice(0, n);
    const aspects = PHRASES[this.lang].aspects;
    const used = new Set<number>();
    while (out.length < n && used.size < aspects.length) out.push(this.c.pickFresh(aspects, used));
    return out;
  }
}

function answerText(a: Analysis, d: Directives, c: Chooser): string {
  const w = new Writer(c, a, d.language);
  const term = (i: number): string => a.terms[i] ?? a.terms[0] ?? a.topic;
  switch (a.intent) {
    case 'greeting':
      return c.pick([
        'Hello! How can I help you today?',
        'Hi there! What would you like to talk about?',
        'Hey! What can I do for you?',
      ]);
    case 'arithmetic': {
      const { expression, value } = a.arithmetic ?? { expression: '', value: 0 };
      const shown = Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(10)));
      return d.brief ? shown : `${expression.replace(/\s+/g, ' ')} = ${shown}`;
    }
    case 'yesno': {
      const lead = w.phrase('yes');
      if (d.brief) return lead;
      const body = w.subjects(2).map((s) => w.phrase('point', s));
      return [lead, ...body, w.phrase('close')].join('\n\n');
    }
    case 'story': {
      const name = c.pick(['Mara', 'Elias', 'Noor', 'Tomas', 'Lina', 'Kai', 'Iris', 'Jonah']);
      const place = c.pick([
        'a quiet harbour town',
        'the edge of an old forest',
        'a city of glass towers',
        'a mountain village',
      ]);
      const titleCase = (t: string): string => t.split(' ').map(capitalize).join(' ');
      const title = `The ${titleCase(term(0))}${a.terms[1] ? ` and the ${titleCase(term(1))}` : ''}`;
      const paragraphs = [
        `${title}\n\n${name} had lived in ${place} for as long as anyone could remember, but nothing had prepared them for ${a.topic}.`,
        `It began on an ordinary morning, when ${c.pick(['a rumour', 'a letter', 'a strange light', 'a knock at the door'])} brought news of the ${term(0)}. ${name} ${c.pick(['hesitated', 'smiled', 'froze', 'laughed'])}, then decided to see for themselves${a.terms[1] ? `, all the way to the ${term(1)}` : ''}.`,
        `By nightfall, ${name} understood that the ${term(a.terms.length > 1 ? 1 : 0)} was never the real mystery. The real mystery was why it had chosen them.`,
        `And so, with ${c.pick(['a steady heart', 'trembling hands', 'a grin', 'quiet resolve'])}, ${name} stepped forward, and the story of ${a.topic} truly began.`,
      ];
      return d.brief ? (paragraphs[0] ?? title) : paragraphs.join('\n\n');
    }
    case 'poem': {
      const t0 = term(0);
      const t1 = term(1);
      const lines = [
        `${capitalize(t0)} ${c.pick(['whisper', 'rise', 'linger', 'drift'])} in the ${c.pick(['morning', 'evening', 'silver', 'quiet'])} light,`,
        `${c.pick(['a', 'one', 'the'])} ${c.pick(['gentle', 'restless', 'patient', 'distant'])} song of ${t1},`,
        `we carry ${a.topic} ${c.pick(['like a lantern', 'like a secret', 'like the tide', 'like a promise'])},`,
        `and ${c.pick(['the world', 'the night', 'the sky', 'the river'])} ${c.pick(['listens', 'answers', 'remembers', 'holds its breath'])}.`,
      ];
      const second = [
        `When ${t0} ${c.pick(['fade', 'fall silent', 'turn to dust', 'drift away'])}, ${c.pick(['something', 'a memory', 'an echo', 'a spark'])} remains,`,
        `${c.pick(['soft', 'bright', 'bold', 'small'])} as ${c.pick(['rain', 'a candle', 'a heartbeat', 'a word'])}, ${c.pick(['steady', 'certain', 'unfinished', 'new'])} as ${t1}.`,
      ];
      return d.brief ? lines.join('\n') : `${lines.join('\n')}\n\n${second.join('\n')}`;
    }
    case 'email': {
      const greet = c.pick(['Hi', 'Hello', 'Dear']);
      const recipient = a.recipient ? capitalize(a.recipient) : 'there';
      const body = [
        `${greet} ${recipient},`,
        `I am writing about ${a.topic}. ${c.pick(['I wanted to share a quick update.', 'I would like to follow up on it.', 'I hope we can agree on a good next step.', 'I wanted to check in about it.'])}`,
        d.brief
          ? ''
          : `Could you let me know ${c.pick(['your thoughts', 'a convenient time to discuss it', 'whether this works for you', 'how you would like to proceed'])}? I am happy to provide more details.`,
        `${c.pick(['Best regards', 'Kind regards', 'Thanks', 'Warm regards'])},\n[Your name]`,
      ].filter(Boolean);
      return `Subject: ${capitalize(a.topic)}\n\n${body.join('\n\n')}`;
    }
    case 'names': {
      const n = a.count ?? 5;
      const adjectives = [
        'Bright',
        'Bold',
        'True',
        'Golden',
        'Simple',
        'Clever',
        'Swift',
        'Open',
        'Wild',
        'Quiet',
        'North',
        'Spark',
      ];
      const nouns = (a.terms.length > 0 ? a.terms : ['Idea']).flatMap((t) => t.split(' ')).map(capitalize);
      const out: string[] = [];
      for (let i = 0; out.length < n && i < n * 6; i++) {
        const noun = nouns[i % nouns.length] ?? 'Idea';
        const form = c.pick([
          `${c.pick(adjectives)} ${noun}`,
          `The ${noun} ${c.pick(['Project', 'Corner', 'Studio', 'Club', 'Company', 'House'])}`,
          `${noun}${c.pick(['ly', 'ify', 'Hub', 'Lab', 'Works', 'Co'])}`,
          `${noun} & ${c.pick(adjectives)}`,
        ]);
        if (!out.includes(form)) out.push(form);
      }
      for (let i = 0; out.length < n; i++)
        out.push(`${adjectives[i % adjectives.length]} ${nouns[0] ?? 'Idea'} ${i + 2}`);
      return out.map((x, i) => `${i + 1}. ${x}`).join('\n');
    }
    case 'list': {
      const n = d.brief ? Math.min(a.count ?? 3, 3) : (a.count ?? 5);
      const items: string[] = [];
      for (let i = 0; i < n; i++) items.push(w.phrase('tips', term(i % Math.max(1, a.terms.length))));
      const intro = d.brief ? '' : `${w.phrase('open')}\n\n`;
      const outro = d.brief ? '' : `\n\n${w.phrase('close')}`;
      return `${intro}${items.map((x, i) => `${i + 1}. ${x}`).join('\n')}${outro}`;
    }
    case 'code':
      return codeAnswer(a, d, c);
    case 'summary':
      return summaryAnswer(a, d, c);
    case 'question': {
      const open = w.phrase('question');
      if (d.brief) return `${open} ${w.phrase('point', w.subjects(1)[0])}`;
      const body = w.subjects(c.int(3, 4)).map((s) => w.phrase('point', s));
      return [open, ...body, w.phrase('close', term(1))].join('\n\n');
    }
    default: {
      const open = w.phrase('open');
      if (d.brief) return `${open} ${w.phrase('point', w.subjects(1)[0])}`;
      const body = w.subjects(c.int(3, 4)).map((s) => w.phrase('point', s));
      return [open, ...body, w.phrase('close', term(1))].join('\n\n');
    }
  }
}

function summaryAnswer(a: Analysis, d: Directives, c: Chooser): string {
  const source = a.passage ?? a.topic;
  const sentences = source.match(/[^.!?]+[.!?]+|[^.!?]+$/g)?.map((x) => x.trim()) ?? [source];
  const frequency = new Map<string, number>();
  for (const word of source.toLowerCase().match(/\p{L}{4,}/gu) ?? []) {
    if (!STOPWORDS.has(word) && !VERBS.has(word)) frequency.set(word, (frequency.get(word) ?? 0) + 1);
  }
  const score = (s: string): number =>
    (s.toLowerCase().match(/\p{L}{4,}/gu) ?? []).reduce((sum, word) => sum + (frequency.get(word) ?? 0), 0) /
    Math.sqrt(s.length + 1);
  const chosen = sentences
    .map((s, i) => ({ s, i, score: score(s) }))
    .sort((x, y) => y.score - x.score || x.i - y.i)
    .slice(0, d.brief ? 1 : Math.min(3, sentences.length))
    .sort((x, y) => x.i - y.i)
    .map((x) => x.s);
  if (d.brief) return chosen[0] ?? source;
  const keywords = [...frequency.entries()]
    .filter(([word]) => word.length >= 5)
    .sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1))
    .slice(0, 3)
    .map(([word]) => word);
  const lead = `${c.pick(['Summary', 'In brief', 'Key points'])}: the text is mainly about ${keywords.join(', ') || a.topic}.`;
  return `${lead}\n\n${chosen.map((s) => `- ${s}`).join('\n')}`;
}

/** A function name from the task's words ("removes duplicates" → remove_duplicates / removeDuplicates). */
function identifier(task: string, style: 'snake' | 'camel'): string {
  const raw = task.toLowerCase().match(/[a-z][a-z0-9]*/g) ?? [];
  // Up to the first function word after the name has begun ("removes duplicates | from a list").
  const kept: string[] = [];
  for (const w of raw) {
    const skip = STOPWORDS.has(w) || FORM_NOUNS.has(w);
    if (skip && kept.length >= 2) break;
    if (!skip) kept.push(w);
  }
  const words = kept
    .map((w) =>
      VERBS.has(w.replace(/e?s$/, ''))
        ? w.replace(/e?s$/, '')
        : VERBS.has(w.replace(/s$/, ''))
          ? w.replace(/s$/, '')
          : w,
    )
    .slice(0, 3);
  if (words.length === 0) words.push('solve', 'task');
  const name = style === 'snake' ? words.join('_') : words.map((p, i) => (i === 0 ? p : capitalize(p))).join('');
  return /^[0-9]/.test(name) ? `f_${name}` : name;
}

function codeAnswer(a: Analysis, d: Directives, c: Chooser): string {
  const lang = a.codeLanguage ?? 'python';
  const task = a.topic.replace(/\*\//g, '').replace(/"""/g, '');
  const snake = identifier(task, 'snake');
  const camel = identifier(task, 'camel');
  const arg = c.pick(['items', 'values', 'data', 'records']);
  const snippets: Record<string, string> = {
    python: `def ${snake}(${arg}):\n    """${capitalize(task)}."""\n    result = []\n    for item in ${arg}:\n        if item is not None and item not in result:\n            result.append(item)\n    return result\n\n\nif __name__ == "__main__":\n    print(${snake}([1, None, 2, 2, 3]))`,
    javascript: `/** ${capitalize(task)}. */\nfunction ${camel}(${arg}) {\n  return [...new Set(${arg}.filter((item) => item != null))];\n}\n\nconsole.log(${camel}([1, null, 2, 2, 3]));`,
    typescript: `/** ${capitalize(task)}. */\nexport function ${camel}<T>(${arg}: Array<T | null | undefined>): T[] {\n  return [...new Set(${arg}.filter((item): item is T => item != null))];\n}\n\nconsole.log(${camel}([1, null, 2, 2, 3]));`,
    sql: `-- ${capitalize(task)}\nSELECT id, name, created_at\nFROM ${snake}\nWHERE created_at >= CURRENT_DATE - INTERVAL '30 days'\nORDER BY created_at DESC\nLIMIT 100;`,
    bash: `#!/usr/bin/env bash\n# ${capitalize(task)}\nset -euo pipefail\n\nfor file in "$@"; do\n  echo "Processing $file"\ndone`,
    go: `// ${capitalize(camel)}: ${task}.\nfunc ${capitalize(camel)}(${arg} []int) []int {\n\tseen := map[int]bool{}\n\tresult := make([]int, 0, len(${arg}))\n\tfor _, v := range ${arg} {\n\t\tif !seen[v] {\n\t\t\tseen[v] = true\n\t\t\tresult = append(result, v)\n\t\t}\n\t}\n\treturn result\n}`,
    rust: `/// ${capitalize(task)}.\nfn ${snake}(${arg}: &[Option<i32>]) -> Vec<i32> {\n    let mut out: Vec<i32> = ${arg}.iter().flatten().copied().collect();\n    out.dedup();\n    out\n}`,
  };
  const code = `\`\`\`${lang}\n${snippets[lang] ?? snippets.python}\n\`\`\``;
  if (d.brief) return code;
  const name = LANGUAGE_NAMES[lang] ?? lang;
  const intro = c.pick([
    `Here is a ${name} implementation. Task: ${task}.`,
    `Sure! Below is ${name} code for this task (${task}).`,
    `This ${name} snippet is a starting point. Task: ${task}.`,
  ]);
  const outro = c.pick([
    'It keeps the logic small and easy to test; adapt the filtering step to your data.',
    'You can extend the core loop with your own validation rules.',
    'Add error handling around the input if it comes from an external source.',
  ]);
  return `${intro}\n\n${code}\n\n${outro}`;
}

/** A value shaped like `example`, filled from the analysis and the answer. */
function fillTemplate(example: unknown, a: Analysis, answer: string, c: Chooser, key = ''): unknown {
  if (Array.isArray(example)) {
    const first: unknown = example[0];
    const n = Math.max(1, Math.min(5, a.terms.length || 3));
    return Array.from({ length: n }, (_, i) =>
      first === undefined || typeof first === 'string'
        ? (a.terms[i] ?? `${a.topic} ${i + 1}`)
        : fillTemplate(first, { ...a, terms: [...a.terms.slice(i), ...a.terms.slice(0, i)] }, answer, c, key),
    );
  }
  if (example && typeof example === 'object') {
    return Object.fromEntries(
      Object.entries(example as Record<string, unknown>).map(([k, v]) => [k, fillTemplate(v, a, answer, c, k)]),
    );
  }
  if (typeof example === 'number') {
    if (/score|confidence|probability|rating|ratio|percent/i.test(key)) return c.int(60, 95) / 100;
    return Number.isInteger(example) ? c.int(1, 10) : c.int(10, 99) / 10;
  }
  if (typeof example === 'boolean') return c.pick([true, false]);
  if (example === null) return null;
  const k = key.toLowerCase();
  const firstLine = answer.split('\n').find((l) => l.trim() !== '') ?? answer;
  if (/^(title|name|headline|subject|heading)$/.test(k)) return capitalize(a.topic);
  if (/(topic|category|keyword|tag|term|label|type|kind)/.test(k)) return a.terms[0] ?? a.topic;
  if (/(summary|description|answer|text|content|explanation|reason|response|message|body|result)/.test(k))
    return firstLine;
  if (/(language|lang|locale)/.test(k)) return 'en';
  return a.terms[0] ?? a.topic;
}

function jsonAnswer(a: Analysis, d: Directives, c: Chooser, answer: string): string {
  if (d.jsonTemplate !== undefined) return JSON.stringify(fillTemplate(d.jsonTemplate, a, answer, c), null, 2);
  const paragraphs = answer.split(/\n\n+/).filter((p) => p.trim() !== '');
  const value: Record<string, unknown> = { answer: d.brief ? (paragraphs[0] ?? answer) : answer, topic: a.topic };
  if (!d.brief) value.key_points = (a.terms.length > 0 ? a.terms : [a.topic]).slice(0, 4);
  return JSON.stringify(value, null, 2);
}

/** At most `limit` words of `text`, ending at a sentence end when one is in reach; line breaks kept. */
function limitWords(text: string, limit: number): string {
  let count = 0;
  for (const m of text.matchAll(/\S+/g)) {
    count++;
    if (count === limit) {
      const cut = text.slice(0, m.index + m[0].length);
      const lastEnd = Math.max(...[...cut.matchAll(/[.!?](?=\s|$)/g)].map((e) => e.index));
      if (lastEnd > cut.length / 3) return cut.slice(0, lastEnd + 1);
      return `${cut.replace(/[,;:—-]+$/, '')}…`;
    }
  }
  return text;
}

function asBullets(text: string): string {
  if (/^\s*(?:\d+\.|-|\*)\s/m.test(text) || text.includes('```')) return text;
  return text
    .split(/\n\n+/)
    .map((p) => `- ${p.replace(/\n/g, ' ')}`)
    .join('\n');
}

// ---------------------------------------------------------------------------------------
// Entry point.

/** A deterministic, on-topic completion for the request, cut at `maxTokens` completion tokens. */
export function generateText(req: TextGenerationRequest): TextGenerationResult {
  const system = req.systemPrompt ?? '';
  const temperature = Number.isFinite(req.temperature) ? req.temperature : 1;
  const rng = makeRng(JSON.stringify(['sim-text-v1', req.prompt, system, req.model, temperature, req.seed ?? null]));
  const c = chooser(rng, temperature);
  const a = analyze(req.prompt);
  const d = directives(system, req.prompt);

  let text = answerText(a, d, c);
  if (d.persona && !d.json && a.intent !== 'code' && a.intent !== 'arithmetic' && !d.brief) {
    const role = /^(a|an|the)\s/i.test(d.persona) ? d.persona : `a ${d.persona}`;
    text = `${PHRASES[d.language].persona.replace('{role}', d.language === 'en' ? role : role.replace(/^(a|an|the)\s+/i, ''))}\n\n${text}`;
  }
  if (d.bullets && !d.json) text = asBullets(text);
  if (d.wordLimit && !d.json) text = limitWords(text, d.wordLimit);
  if (d.json) text = jsonAnswer(a, d, c, text);
  if (d.upper && !d.json) text = text.toUpperCase();

  const promptTokens = countPromptTokens(req.prompt, req.systemPrompt);
  const maxTokens = Math.max(1, Math.floor(req.maxTokens));
  const tokens = encode(text, ENCODE_OPTIONS);
  let finishReason: 'stop' | 'length' = 'stop';
  let completionTokens = tokens.length;
  if (tokens.length > maxTokens) {
    // A cut inside a multi-byte character decodes to U+FFFD: drop that partial character.
    text = decode(tokens.slice(0, maxTokens)).replace(/\uFFFD+$/, '');
    finishReason = 'length';
    completionTokens = maxTokens;
  }
  return {
    text,
    finishReason,
    usage: {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
    },
  };
}
