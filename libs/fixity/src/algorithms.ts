/**
 * A git blob id: the SHA-1 of `blob <size>\0` followed by the content. GitHub and GitLab name every file's
 * content by it, so it serves as their checksum.
 */
export const GIT_BLOB_SHA1 = 'git-blob-sha1';
