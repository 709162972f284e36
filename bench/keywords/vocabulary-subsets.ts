import { readFileSync } from 'node:fs';
import { normalizeKeyword } from '@app/keywords';
import type { OlsTerm } from '../../test/fakes/ols/fake-ols';
import type { SkosConcept } from '../../test/fakes/skosmos/fake-skosmos';
import { loadEvaluationSet } from './evaluation-set';

/**
 * What the vocabulary fakes answer in bench:keywords: from real ontology and thesaurus files in OBO format, the
 * terms whose label or synonym is a keyword of the evaluation set, and the terms those name as parents (or
 * broader and related concepts), so that the fakes answer the set's keywords as the real services would from
 * those files. The files are not part of the repository; the bench reads the ones it is given:
 *
 *   BENCH_ENVO_OBO       ENVO's release file envo.obo (github.com/EnvironmentOntology/envo; it carries the CHEBI,
 *                        GO, UBERON, PATO and OBI terms ENVO imports)
 *   BENCH_AGROVOC_OBO    AGROVOC in OBO form, one or more files separated by ':' (github.com/cmungall/agrovoc-obo
 *                        subset-*.obo: AGROVOC's SKOS with prefLabel as name, altLabels as synonyms, broader as
 *                        is_a, AGROVOC's relations as relationship)
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

/** The OLS ontologies the enhancer searches by default (the setting OLS_ONTOLOGIES). */
export const OLS_ONTOLOGIES = ['envo', 'go', 'chebi', 'uberon', 'pato', 'obi'];

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

/** OLS terms of the default ontologies (OLS_ONTOLOGIES) named by the set's keywords, from OBO files. */
export function olsTermsFrom(files: readonly string[]): OlsTerm[] {
  const ontologyOf = (stanza: Stanza) => stanza.id.split(':')[0].toLowerCase();
  return subset(readStanzas(files), (stanza) => OLS_ONTOLOGIES.includes(ontologyOf(stanza))).map(
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
}

/** SKOS concepts named by the set's keywords, from AGROVOC's OBO files. */
export function skosConceptsFrom(files: readonly string[]): SkosConcept[] {
  return subset(readStanzas(files), () => true).map((stanza) => ({
    uri: stanza.id,
    prefLabel: stanza.name,
    altLabels: stanza.synonyms,
    broader: stanza.parents,
    related: stanza.related,
  }));
}

function readStanzas(files: readonly string[]): Stanza[] {
  return files.flatMap((file) => parseObo(readFileSync(file, 'utf8')));
}
