import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { normalizeKeyword } from '@app/keywords';
import type { OlsTerm } from '../../test/fakes/ols/fake-ols';
import type { SkosConcept } from '../../test/fakes/skosmos/fake-skosmos';
import { loadEvaluationSet } from './evaluation-set';

/**
 * bench/keywords/vocabulary-subsets.ts: how the vocabulary fixtures the bench runs OLS and Skosmos against were
 * made. From real ontology and thesaurus files in OBO format it keeps the terms whose label or synonym is a
 * keyword of the evaluation set, and the terms those name as parents (or broader and related concepts), so
 * that the fakes answer the set's keywords as the real services would from those files.
 *
 *   npx tsx bench/keywords/vocabulary-subsets.ts ols <source> <envo.obo>
 *   npx tsx bench/keywords/vocabulary-subsets.ts skosmos <source> <agrovoc subset.obo>...
 *
 * <source> is written into the fixture: the repository, commit and paths the files came from.
 *   ols:     EnvironmentOntology/envo envo.obo (the ENVO release with the CHEBI, GO, UBERON, PATO and OBI terms it
 *            imports) → test/fakes/ols/ontology-subset.json
 *   skosmos: cmungall/agrovoc-obo subset-*.obo (AGROVOC's SKOS translated to OBO: prefLabel as name, altLabels
 *            as synonyms, broader as is_a, AGROVOC's relations as relationship) → test/fakes/skosmos/agrovoc-subset.json
 */

/** One stanza of an OBO file. */
interface Stanza {
  id: string;
  name: string;
  synonyms: string[];
  definition: string;
  parents: string[];
  related: string[];
  obsolete: boolean;
}

/** The OLS ontologies the enhancer searches by default (OLS_ONTOLOGIES). */
const OLS_ONTOLOGIES = new Set(['envo', 'go', 'chebi', 'uberon', 'pato', 'obi']);

function parseObo(text: string): Stanza[] {
  const stanzas: Stanza[] = [];
  for (const block of text.split(/\n(?=\[)/)) {
    if (!block.startsWith('[Term]')) continue;
    const stanza: Stanza = {
      id: '',
      name: '',
      synonyms: [],
      definition: '',
      parents: [],
      related: [],
      obsolete: false,
    };
    for (const line of block.split('\n')) {
      const [tag, ...rest] = line.split(': ');
      const value = rest.join(': ');
      if (tag === 'id') stanza.id = value;
      else if (tag === 'name') stanza.name = value;
      else if (tag === 'synonym') stanza.synonyms.push(quoted(value));
      else if (tag === 'def') stanza.definition = quoted(value);
      else if (tag === 'is_a') stanza.parents.push(value.split(' ')[0]);
      else if (tag === 'relationship') stanza.related.push(value.split(' ')[1]);
      else if (tag === 'is_obsolete') stanza.obsolete = value === 'true';
    }
    if (stanza.id && stanza.name) stanzas.push(stanza);
  }
  return stanzas;
}

/** The text between the first pair of double quotes, unescaped. */
function quoted(value: string): string {
  const match = /^"((?:[^"\\]|\\.)*)"/.exec(value);
  return match ? match[1].replace(/\\(.)/g, '$1') : value;
}

/** An OBO id as an IRI: CURIEs (ENVO:00002259) expand to PURLs, IRIs stay. */
function iri(id: string): string {
  return id.includes('://') ? id : `http://purl.obolibrary.org/obo/${id.replace(':', '_')}`;
}

/** The stanzas named (by label or synonym) by a keyword of the set, and those they point to. */
function subset(stanzas: readonly Stanza[], keep: (stanza: Stanza) => boolean): Stanza[] {
  const keywords = new Set(loadEvaluationSet().resources.flatMap((r) => r.keywords.map(normalizeKeyword)));
  const named = stanzas.filter(
    (stanza) =>
      keep(stanza) && [stanza.name, ...stanza.synonyms].some((name) => keywords.has(normalizeKeyword(name))),
  );
  const pointedTo = new Set(named.flatMap((stanza) => [...stanza.parents, ...stanza.related]));
  return stanzas.filter((stanza) => named.includes(stanza) || pointedTo.has(stanza.id));
}

function ols(source: string, files: readonly string[]): void {
  const ontologyOf = (stanza: Stanza) => stanza.id.split(':')[0].toLowerCase();
  const stanzas = files.flatMap((file) => parseObo(readFileSync(file, 'utf8')));
  const terms: OlsTerm[] = subset(stanzas, (stanza) => OLS_ONTOLOGIES.has(ontologyOf(stanza))).map(
    (stanza) => ({
      ontology: ontologyOf(stanza),
      iri: iri(stanza.id),
      label: stanza.name,
      synonyms: stanza.synonyms,
      description: stanza.definition ? [stanza.definition] : [],
      parents: stanza.parents.map(iri),
      obsolete: stanza.obsolete,
    }),
  );
  write('test/fakes/ols/ontology-subset.json', source, terms);
}

function skosmos(source: string, files: readonly string[]): void {
  const stanzas = files.flatMap((file) => parseObo(readFileSync(file, 'utf8')));
  const concepts: SkosConcept[] = subset(stanzas, () => true).map((stanza) => ({
    uri: stanza.id,
    prefLabel: stanza.name,
    altLabels: stanza.synonyms,
    broader: stanza.parents,
    related: stanza.related,
  }));
  write('test/fakes/skosmos/agrovoc-subset.json', source, concepts);
}

function write(path: string, source: string, entries: readonly unknown[]): void {
  const fixture = {
    about:
      'A subset of real vocabulary data for the keywords of bench/keywords/resources.json; made by bench/keywords/vocabulary-subsets.ts.',
    source,
    entries,
  };
  writeFileSync(join(__dirname, '..', '..', path), `${JSON.stringify(fixture, null, 2)}\n`);
  console.log(`${path}: ${entries.length} entries`);
}

const [kind, source, ...files] = process.argv.slice(2);
if (kind === 'ols') ols(source, files);
else if (kind === 'skosmos') skosmos(source, files);
else throw new Error('usage: vocabulary-subsets.ts ols|skosmos <source> <file.obo>...');
