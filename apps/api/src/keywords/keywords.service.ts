import { Inject, Injectable } from '@nestjs/common';
import { KEYWORD_ENHANCER, normalizeKeywords, resourceKeywords, type KeywordEnhancer } from '@app/keywords';
import { mergeFtsMetadata, newAction } from '@app/metadata';
import { findMetadataFile, writeMetadataFile } from '@app/connectors';
import { TargetsRegistry } from '@app/targets';

/** Keywords of resources at targets (docs/behaviour.md#keywords) and the keyword enhancement service (docs/behaviour.md#keywords). */
@Injectable()
export class KeywordsService {
  constructor(
    private readonly registry: TargetsRegistry,
    @Inject(KEYWORD_ENHANCER) private readonly enhancer: KeywordEnhancer,
  ) {}

  async read(targetName: string, id: string, token: string) {
    const target = this.registry.require(targetName);
    target.requireAction('keywords');
    const session = await target.connector.open(token);
    const keywords = resourceKeywords(await session.keywords(id), await findMetadataFile(session, id));
    const { terms } = await this.enhancer.enhance(keywords);
    return { keywords, enhanced_keywords: terms, all_keywords: [...keywords, ...terms] };
  }

  /**
   * Adds keywords to the resource at the target and to its metadata file, recording the change there as an
   * action (docs/behaviour.md#metadata-file); synchronous, answered with 202 as the contract says.
   */
  async add(targetName: string, id: string, token: string, requested: readonly string[]) {
    const target = this.registry.require(targetName);
    target.requireAction('keywords');
    target.requireAction('keywords_upload');
    const session = await target.connector.open(token);
    const own = await session.keywords(id);
    const metadata = await findMetadataFile(session, id);
    const before = new Set(resourceKeywords(own, metadata));
    const keywords = normalizeKeywords(requested);
    const stored = await session.setKeywords(id, normalizeKeywords([...own, ...keywords]));
    const action = newAction({
      details: `PresQT Enhance Keywords in ${target.entry.readable_name}`,
      actionType: 'keyword_enhancement',
      sourceTargetName: target.name,
      destinationTargetName: target.name,
      sourceUsername: session.username,
      destinationUsername: session.username,
      keywords: {
        sourceKeywordsAdded: [],
        sourceKeywordsEnhanced: keywords,
        ontologies: [],
        enhancer: 'none',
      },
      files: { created: [], updated: [], ignored: [] },
    });
    const writer = await session.openWriter(id, { newProject: false, message: 'PresQT keyword update' });
    await writeMetadataFile(writer, mergeFtsMetadata(metadata, [action], keywords));
    await writer.commit();
    return {
      keywords_added: keywords.filter((keyword) => !before.has(keyword)),
      final_keywords: normalizeKeywords([...before, ...stored, ...keywords]),
    };
  }

  /** The keyword enhancement service: the input with what the enhancer finds for it, in a stable order. */
  async enhance(requested: readonly string[]) {
    const keywords = normalizeKeywords(requested);
    const { terms } = await this.enhancer.enhance(keywords);
    return { keywords_added: terms, final_keywords: [...keywords, ...terms] };
  }
}
