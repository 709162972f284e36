/**
 * The assessment rubrics (docs/behaviour.md#assessment). Rubric and metric ids are FAIRshake's
 * own, so answers registered there need no mapping.
 */
export const ANSWER_OPTIONS: Readonly<Record<string, string>> = {
  '0.0': 'no',
  '0.25': 'nobut',
  '0.5': 'maybe',
  '0.75': 'yesbut',
  '1.0': 'yes',
};

export interface Rubric {
  /** what FAIRshake calls the kind of digital object this rubric assesses */
  digitalObjectType: 'tool' | 'data' | 'repo';
  /** metric id → description, in the rubric's order */
  metrics: Readonly<Record<string, string>>;
}

export const RUBRICS: Readonly<Record<string, Rubric>> = {
  '7': {
    digitalObjectType: 'tool',
    metrics: {
      '12': 'The tool has a unique name and an informative description.',
      '13': 'The tool can be freely downloaded or accessed from a webpage.',
      '14': 'The tool utilizes a community-accepted ontology.',
      '15': "Tutorials for the tool are available on the tool's homepage.",
      '16': 'Source code is shared in a public repository and is documented.',
      '17': 'Previous versions of the tool are made available.',
      '18': 'Contact information is provided for the creator(s) of the tool and information describing how to cite the tool is provided.',
      '19': 'The tool can be accessed programmatically through an API and follows community standards for open APIs.',
      '20': "Licensing information is provided on the tool's homepage.",
    },
  },
  '8': {
    digitalObjectType: 'data',
    metrics: {
      '21': 'A standardized ID or accession number is used to identify the dataset.',
      '22': 'The dataset is described with metadata using a formal, broadly applicable vocabulary.',
      '23': 'Information is provided on the experimental methods used to generate the data.',
      '24': 'The dataset is hosted in an established data repository, if a relevant repository exists.',
      '25': 'The dataset can be downloaded for free from the repository.',
      '26': 'Version information is provided for the dataset.',
      '27': 'Contact information is provided for the creator(s) of the dataset.',
      '28': 'Information is provided describing how to cite the dataset.',
      '29': "Licensing information is provided on the dataset's landing page.",
    },
  },
  '9': {
    digitalObjectType: 'repo',
    metrics: {
      '30': 'The structure of the repository permits efficient discovery of data and metadata by end users.',
      '31': 'The repository uses a standardized protocol to permit access by users.',
      '32': 'The repository provides contact information for staff to enable users with questions or suggestions to interact with repository experts.',
      '33': 'Tools that can be used to analyze each dataset are listed on the corresponding dataset pages.',
      '34': 'The repository maintains licenses to manage data access and use.',
      '35': 'The repository hosts data and metadata according to a set of defined criteria to ensure that the resources provided are consistent with the intent of the repository.',
      '36': 'The repository provides documentation for each resource to permit its complete and accurate citation.',
      '37': 'A description of the methods used to acquire the data is provided.',
      '38': 'Version information is provided for each resource, where available.',
    },
  },
};

/** The rubric's metrics with these ids, in this order. */
function pick(rubric: Rubric, ids: readonly string[]): Rubric['metrics'] {
  return Object.fromEntries(ids.map((id) => [id, rubric.metrics[id]]));
}

/**
 * FAIRshake's later rubrics, which the PresQT web client offers (the `fairshake` alias): 93 to 95 keep some
 * metrics of 9, 8 and 7; 96 is answered automatically from FAIRshare tests (FAIRSHAKE_AUTOMATIC).
 */
export const FAIRSHAKE_RUBRICS: Readonly<Record<string, Rubric>> = {
  '93': {
    digitalObjectType: 'repo',
    metrics: pick(RUBRICS['9'], ['30', '31', '32', '34', '35', '36', '37', '38']),
  },
  '94': {
    digitalObjectType: 'data',
    metrics: pick(RUBRICS['8'], ['21', '22', '24', '25', '26', '27', '28', '29']),
  },
  '95': { digitalObjectType: 'tool', metrics: pick(RUBRICS['7'], ['12', '15', '17', '20']) },
  '96': {
    digitalObjectType: 'repo',
    // metric ids are integer-like keys, so they come out in numeric order (30 first)
    metrics: {
      '90': 'The metadata holds a globally unique identifier of the resource.',
      '30': RUBRICS['9'].metrics['30'],
      '109': 'The resource can be discovered through a web search.',
      '110': 'The resource is reached through an open, free and standardized access protocol.',
      '113': 'The resource uses a formal language to represent knowledge.',
      '117': 'The metadata holds license information.',
    },
  },
};

/** Rubric 96's metrics, each answered by one FAIRshare test (by test id). */
export const FAIRSHAKE_AUTOMATIC = {
  rubricId: '96',
  testForMetric: { '90': 1, '30': 5, '109': 8, '110': 10, '113': 17, '117': 22 } as Readonly<
    Record<string, number>
  >,
};
