/**
 * Words that say nothing about a sense when two glosses share them: function words, and the words WordNet's
 * definitions use for anything ("a kind of", "any of various", "something used to").
 */
const STOP_WORDS = new Set(
  (
    'a about above after again against all also an and any are around as at be because been before being below ' +
    'between both but by can could did do does done down during each especially etc even ever every few for ' +
    'from further had has have having he her here him his how however i if in into is it its itself just large ' +
    'less like made make many may more most much must my near no nor not now of off often on once one only or ' +
    'other our out over own part per same she should small so some something such than that the their them then ' +
    'there these they this those through to too two under until up upon use used usually very was way we were ' +
    'what when where which while who whom why will with within without would you your various especially ' +
    'kind form type sort group member members several certain called using having usually typically thing ' +
    'things whose being often new old great good high low long short'
  ).split(' '),
);

/**
 * Words near the top of WordNet's hierarchy: shared by so many senses that an overlap in them is no evidence
 * that two senses belong together.
 */
const TOO_COMMON = new Set(
  (
    'entity physical abstraction abstract object whole unit act action activity state condition attribute ' +
    'property relation measure quantity amount event process matter substance material thing being ' +
    'causal agent cause psychological feature content communication artifact artefact instrumentality ' +
    'person individual someone somebody people group grouping location region area place body ' +
    'structure system part portion piece set collection natural human social change time period ' +
    'phenomenon psychological feature abstraction'
  ).split(' '),
);

/**
 * The content words of `text`, lower-cased and reduced to a base form (plural endings removed), without stop
 * words, words too common to be evidence, numbers and one- or two-letter words.
 */
export function glossTokens(text: string): string[] {
  const tokens: string[] = [];
  for (const raw of text.toLowerCase().split(/[^a-z]+/)) {
    if (raw.length < 3 || STOP_WORDS.has(raw)) continue;
    const token = baseForm(raw);
    if (token.length >= 3 && !TOO_COMMON.has(token) && !STOP_WORDS.has(token)) tokens.push(token);
  }
  return tokens;
}

/** A crude English singular, enough to match "marshes" with "marsh" and "bacteria" with "bacterium"'s gloss. */
function baseForm(word: string): string {
  if (word.endsWith('ies') && word.length > 4) return `${word.slice(0, -3)}y`;
  if (/(ch|sh|ss|x|z)es$/.test(word)) return word.slice(0, -2);
  if (word.endsWith('s') && !word.endsWith('ss') && !word.endsWith('us') && !word.endsWith('is')) {
    return word.slice(0, -1);
  }
  return word;
}
