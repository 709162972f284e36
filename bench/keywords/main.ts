import { WordNetKeywordEnhancer, type KeywordEnhancer } from '@app/keywords';
import {
  loadEvaluationSet,
  verdict,
  type EvaluatedResource,
  type EvaluationSet,
  type Verdict,
} from './evaluation-set';

/**
 * bench:keywords: runs each keyword enhancer over the evaluation set (bench/keywords/resources.json) and prints
 * precision (the share of suggestions a curator keeps; an unjudged suggestion counts as not kept) and coverage
 * (the share of resources that get any suggestion), for the tuning split, the held-out split and both.
 * `--details` prints every suggestion for the tuning split with its verdict, `--details=all` for both. docs/keywords.md explains the set and the figures.
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
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
