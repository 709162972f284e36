import { fail, missingRequired, normalized, notPermitted, type FakeContext, type Router } from './common';
import { ok, timestamp, userJson } from './json';
import { citation, titleOf, type Dataset, type Version } from './model';
import { matches } from './solr';

/** mydata/retrieve's page size (SearchConstants.NUM_SOLR_DOCS_TO_RETRIEVE). */
const MYDATA_PAGE_SIZE = 10;
/** The role the fake's dataset creators hold on their datasets: Contributor (native-api.html#mydata). */
const CREATOR_ROLE = 6;

interface Card {
  dataset: Dataset;
  version: Version;
  statuses: string[];
}

/** The Solr documents of a dataset: its draft's and its published version's (IndexServiceBean indexes both). */
function cardsOf(dataset: Dataset): Card[] {
  const cards: Card[] = [];
  if (dataset.draft)
    cards.push({
      dataset,
      version: dataset.draft,
      statuses: dataset.published ? ['Draft'] : ['Unpublished', 'Draft'],
    });
  if (dataset.published?.state === 'RELEASED')
    cards.push({ dataset, version: dataset.published, statuses: ['Published'] });
  return cards;
}

/** A card as SolrSearchResult.getJsonForMyData prints it, with the parent's alias and the user's roles. */
function cardJson(context: FakeContext, { dataset, version, statuses }: Card): object {
  const title = titleOf(version);
  const keywords = ((citation(version, 'keyword')?.value ?? []) as Record<string, { value: string }>[]).map(
    (entry) => entry.keywordValue?.value,
  );
  return {
    name: title,
    type: 'dataset',
    url: `https://doi.org/${dataset.persistentId.slice(4)}`,
    global_id: dataset.persistentId,
    description: '',
    ...(version.releaseTime ? { published_at: timestamp(version.releaseTime) } : {}),
    publisher: 'Root',
    citation: `${title}, https://doi.org/${dataset.persistentId.slice(4)}, Root, DRAFT VERSION`,
    identifier_of_dataverse: dataset.collection,
    name_of_dataverse: 'Root',
    storageIdentifier: `file://${dataset.persistentId.slice(4)}`,
    ...(keywords.length > 0 ? { keywords } : {}),
    fileCount: version.files.length,
    versionId: version.id,
    versionState: version.state,
    createdAt: timestamp(version.createTime),
    updatedAt: timestamp(version.lastUpdateTime),
    entity_id: dataset.id,
    publicationStatuses: statuses,
    publication_statuses: statuses,
    is_draft_state: statuses.includes('Draft'),
    is_in_review_state: false,
    is_unpublished_state: statuses.includes('Unpublished'),
    is_published: statuses.includes('Published'),
    is_deaccesioned: false,
    is_valid: true,
    date_to_display_on_card: version.lastUpdateTime.toDateString(),
    parentId: '1',
    parentName: 'Root',
    parent_alias: dataset.collection,
    user_roles: ['Contributor'],
  };
}

/** The routes of the user's account and collections: info, users/:me, mydata, creating datasets. */
export function accountRoutes(route: Router, context: FakeContext): void {
  const { state } = context;

  // native-api.html#show-dataverse-software-version-and-build-number: answers without a token
  route('GET', '/info/version', (_request, answer) => {
    answer.json(200, ok({ version: '6.6', build: '1234-abcdef' }));
  });

  // native-api.html#get-user-information-in-json-format (Users.getAuthenticatedUserByToken)
  route('GET', '/users/:me', (_request, answer, caller) => {
    if (!caller) return fail(answer, 400, 'User with token null not found.');
    answer.json(200, ok(userJson(caller)));
  });

  /*
   * native-api.html#mydata (DataRetrieverAPI.retrieveMyDataAsJsonString): the datasets the user has one of
   * `role_ids` on, in `published_states`, matching `mydata_search_term`, newest first, ten to a page. Answered
   * in its own shape, with 200 even for a failure (`success: false`).
   */
  route('GET', '/mydata/retrieve', (request, answer, caller) => {
    const query = request.url.searchParams;
    if (!caller)
      return answer.json(200, {
        success: false,
        error_message: 'Only authenticated users can perform the requested operation',
      });
    const roles = query.getAll('role_ids').map(Number);
    if (roles.length === 0)
      return answer.json(200, {
        success: false,
        error_message: 'No results. Please select at least one Role.',
      });
    const states = query.getAll('published_states');
    const wanted = states.length > 0 ? states : ['Published', 'Unpublished', 'Draft', 'In Review'];
    const term = query.get('mydata_search_term');
    const cards = [...state.datasets.values()]
      .filter((dataset) => dataset.editors.has(caller.id) && roles.includes(CREATOR_ROLE))
      .sort((a, b) => b.sortDate.getTime() - a.sortDate.getTime())
      .flatMap(cardsOf)
      .filter((card) => card.statuses.some((status) => wanted.includes(status)))
      .filter((card) => matches(card.version, term));
    const page = Number(query.get('selected_page') ?? 1);
    const items = cards.slice((page - 1) * MYDATA_PAGE_SIZE, page * MYDATA_PAGE_SIZE);
    const pageCount = Math.max(1, Math.ceil(cards.length / MYDATA_PAGE_SIZE));
    answer.json(200, {
      success: true,
      ...(cards.length === 0 ? { message: 'Sorry, no results were found.' } : {}),
      data: {
        pagination: {
          isNecessary: pageCount > 1,
          numResults: cards.length,
          docsPerPage: MYDATA_PAGE_SIZE,
          selectedPageNumber: page,
          pageCount,
          hasPreviousPageNumber: page > 1,
          hasNextPageNumber: page < pageCount,
        },
        items: items.map((card) => cardJson(context, card)),
        total_count: cards.length,
        start: (page - 1) * MYDATA_PAGE_SIZE,
        search_term: term ?? '*:*',
        dvobject_counts: { datasets_count: cards.length },
      },
    });
  });

  // native-api.html#create-a-dataset-in-a-dataverse-collection (Dataverses.createDataset): 201 with its ids
  route('POST', '/dataverses/{identifier}/datasets', async (request, answer, caller) => {
    const collection = request.params.identifier;
    if (!state.collections.has(collection))
      return fail(answer, 404, `Can't find dataverse with identifier='${collection}'`);
    if (!caller) return notPermitted(answer, caller);
    const body = await request.json<{
      datasetVersion?: { metadataBlocks?: { citation?: { fields?: unknown } } };
    }>();
    if (!body?.datasetVersion) return fail(answer, 400, 'JSON is missing datasetVersion');
    const given = body.datasetVersion.metadataBlocks?.citation?.fields;
    if (!Array.isArray(given)) return fail(answer, 400, 'Error parsing Json: citation fields expected');
    const fields = (given as { typeName: string; value: unknown }[]).map(normalized);
    const missing = missingRequired(fields);
    if (missing.length > 0) return fail(answer, 400, `Validation Failed: ${missing.join(', ')} is required.`);
    const dataset = state.createDataset(caller, collection, fields);
    answer.json(201, ok({ id: dataset.id, persistentId: dataset.persistentId }), {
      location: `/datasets/${dataset.id}`,
    });
  });
}
