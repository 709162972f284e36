import { ApiProperty } from '@nestjs/swagger';
import { CheckedField, keywordListProblem } from '../../common/checked-field.decorator';

/** Body of a keyword upload and of a keyword enhancement. */
export class KeywordsBodyDto {
  @ApiProperty({ type: [String], example: ['soil moisture', 'Ecology'] })
  @CheckedField("PresQT Error: 'keywords' is missing from the request body.", keywordListProblem)
  keywords!: string[];
}

export class ResourceKeywordsDto {
  @ApiProperty({
    type: [String],
    description: "the target's own keywords and the metadata file's allKeywords",
  })
  keywords!: string[];
  @ApiProperty({ type: [String], description: 'what the keyword enhancer adds to them' })
  enhanced_keywords!: string[];
  @ApiProperty({ type: [String], description: 'keywords followed by enhanced_keywords' })
  all_keywords!: string[];
}

export class KeywordsAddedDto {
  @ApiProperty({ type: [String], description: 'the terms that were not there before' })
  keywords_added!: string[];
  @ApiProperty({ type: [String], description: 'all the keywords now' })
  final_keywords!: string[];
}
