import {
  HttpKeywordEnhancer,
  OlsVocabulary,
  SkosmosVocabulary,
  WordNetKeywordEnhancer,
  type Enhancement,
  type KeywordEnhancer,
  type VocabularyService,
} from '@app/keywords';
import type { FakeServer } from '../../test/fakes/fake-server';
import { fakeOls } from '../../test/fakes/ols/fake-ols';
import { fakeSkosmos } from '../../test/fakes/skosmos/fake-skosmos';
import {
  loadEvaluationSet,
  verdict,
  type EvaluatedResource,
  type EvaluationSet,
  type Verdict,
} from './evaluation-set';
import { OLS_ONTOLOGIES, olsTermsFrom, skosConceptsFrom } from './vocabulary-subsets';

/**
 * bench:keywords: runs each keyword enhancer over the evaluation set (bench/keywords/resources.json) and prints
 * precision (the share of suggestions a curator keeps; an unjudged suggestion counts as not kept) and coverage
 * (the share of resources that get any suggestion), for the tuning split, the held-out split and both: the
 * embedded WordNet enhancer, and OLS and Skosmos answered by their fakes holding what real vocabulary files say of
 * the set's keywords (bench/keywords/vocabulary-subsets.ts; a vocabulary whose file is not given is skipped).
 * `--details` prints every suggestion for the tuning split with
 * its verdict, `--details=all` for both. docs/keywords.md explains the set and the figures.
 */

interface Outcome {
  resource: EvaluatedResource;
  suggestions: { term: string; verdict: Verdict }[];
}

async function evaluate(set: EvaluationSet, enhancer: KeywordEnhancer): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for (const resource of set.resources) {
    const { terms } = await enhancer.enhance(resource.keywords, { title: resource.title });
    outcomes.push({
      resource,
      suggestions: terms.map((term) => ({ term, verdict: verdict(set, resource, term) })),
    });
  }
  return outcomes;
}

function summary(outcomes: readonly Outcome[]): string {
  const suggestions = outcomes.flatMap((outcome) => outcome.suggestions);
  const count = (v: Verdict) => suggestions.filter((s) => s.verdict === v).length;
  const covered = outcomes.filter((outcome) => outcome.suggestions.length > 0).length;
  const precision = suggestions.length === 0 ? 0 : count('kept') / suggestions.length;
  return [
    `precision ${precision.toFixed(3)}`,
    `coverage ${(covered / outcomes.length).toFixed(3)} (${covered}/${outcomes.length})`,
    `suggestions ${suggestions.length}: kept ${count('kept')}, rejected ${count('rejected')}, unjudged ${count('unjudged')}`,
  ].join('  ');
}

function report(name: string, outcomes: readonly Outcome[], details: 'tune' | 'all' | undefined): void {
  console.log(`\n${name}`);
  for (const split of ['tune', 'held-out'] as const) {
    const part = outcomes.filter((outcome) => outcome.resource.split === split);
    console.log(`  ${split.padEnd(8)}  ${summary(part)}`);
  }
  console.log(`  ${'all'.padEnd(8)}  ${summary(outcomes)}`);
  if (!details) return;
  for (const { resource, suggestions } of outcomes.filter(
    (o) => details === 'all' || o.resource.split === 'tune',
  )) {
    const marks = suggestions.map(({ term, verdict }) =>
      verdict === 'kept' ? term : `${term} [${verdict}]`,
    );
    console.log(`    ${resource.id} (${resource.keywords.join(', ')}): ${marks.join('; ') || '-'}`);
  }
}

/** The files named by a variable (':'-separated), or none when it is unset. */
function filesOf(variable: string): string[] {
  return (process.env[variable] ?? '').split(':').filter(Boolean);
}

/** The fallback of a vocabulary enhancer in the bench: a failing fake is a broken bench, not a WordNet answer. */
const noFallback: KeywordEnhancer = {
  name: 'none',
  enhance(): Promise<Enhancement> {
    return Promise.reject(new Error('the vocabulary fake did not answer'));
  },
};

/** Runs a vocabulary over the set against its fake, and stops the fake. */
async function evaluateVocabulary(
  set: EvaluationSet,
  fake: FakeServer,
  service: VocabularyService,
  path: string,
): Promise<Outcome[]> {
  await fake.start();
  try {
    const url = fake.origin + path;
    return await evaluate(set, new HttpKeywordEnhancer(service, { url, timeoutMs: 10_000 }, noFallback));
  } finally {
    await fake.stop();
  }
}

async function main(): Promise<void> {
  const details = process.argv.includes('--details=all')
    ? 'all'
    : process.argv.includes('--details')
      ? 'tune'
      : undefined;
  const set = loadEvaluationSet();
  console.log(
    `Evaluation set: ${set.resources.length} resources ` +
      `(${set.resources.filter((r) => r.split === 'held-out').length} held out)`,
  );
  const embedded = new WordNetKeywordEnhancer();
  const started = process.hrtime.bigint();
  const outcomes = await evaluate(set, embedded);
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  report(`embedded (WordNet), ${(ms / set.resources.length).toFixed(1)} ms a resource`, outcomes, details);

  const envo = filesOf('BENCH_ENVO_OBO');
  if (envo.length === 0) console.log('\nOLS: skipped (BENCH_ENVO_OBO names no ENVO release file)');
  else {
    const terms = olsTermsFrom(envo);
    report(
      `OLS (default ontologies) against its fake holding ${terms.length} terms of ${envo.join(', ')}`,
      await evaluateVocabulary(
        set,
        fakeOls(terms),
        new OlsVocabulary({ ontologies: OLS_ONTOLOGIES }),
        '/ols4',
      ),
      details,
    );
  }
  const agrovoc = filesOf('BENCH_AGROVOC_OBO');
  if (agrovoc.length === 0) console.log('\nSkosmos: skipped (BENCH_AGROVOC_OBO names no AGROVOC file)');
  else {
    const concepts = skosConceptsFrom(agrovoc);
    const skosmos = new SkosmosVocabulary({ vocabulary: 'agrovoc', language: 'en' });
    report(
      `Skosmos (AGROVOC) against its fake holding ${concepts.length} concepts of ${agrovoc.length} file(s)`,
      await evaluateVocabulary(set, fakeSkosmos('agrovoc', 'en', concepts), skosmos, '/browse'),
      details,
    );
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
