import { newTerms, normalizeKeyword, normalizeKeywords, pickTerms } from '@app/keywords';

describe('normalizeKeywords', () => {
  it('trims, lower-cases and makes inner white space one space', () => {
    expect(normalizeKeywords(['  Climate Change ', 'MACHINE\tlearning', 'Ocean\n'])).toEqual([
      'climate change',
      'machine learning',
      'ocean',
    ]);
  });

  it('drops empty and blank keywords', () => {
    expect(normalizeKeywords(['', '   ', '\t\n', 'soil'])).toEqual(['soil']);
  });

  it('removes duplicates, also those that differ only in case or spacing, keeping the first-seen order', () => {
    expect(normalizeKeywords(['Soil', 'water', 'SOIL', ' water ', 'air', 'soil'])).toEqual([
      'soil',
      'water',
      'air',
    ]);
  });

  it('gives an empty list for an empty list', () => {
    expect(normalizeKeywords([])).toEqual([]);
  });

  it('normalizes one keyword the same way', () => {
    expect(normalizeKeyword('  Deep   Sea ')).toBe('deep sea');
  });
});

describe('pickTerms', () => {
  it('keeps the first distinct normalized terms up to the cap, without the keyword itself or skipped terms', () => {
    expect(
      pickTerms(
        ['Ocean', 'Sea', 'sea', 'Entity', 'Body of Water', 'water', 'brine'],
        'ocean',
        3,
        (term) => term === 'entity',
      ),
    ).toEqual(['sea', 'body of water', 'water']);
  });
});

describe('newTerms', () => {
  it('joins the terms of each keyword in keyword order, without duplicates or any input keyword', () => {
    expect(
      newTerms(
        ['Ocean', 'sea'],
        [
          ['sea', 'body of water'],
          ['ocean', 'Body of Water', 'brine'],
        ],
      ),
    ).toEqual(['body of water', 'brine']);
  });
});
