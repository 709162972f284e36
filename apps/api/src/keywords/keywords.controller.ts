import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiAcceptedResponse, ApiHeader, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../common/dto/error.dto';
import { RequiredHeader, SOURCE_TOKEN } from '../common/required-header.decorator';
import { strictValidation } from '../common/validation.pipe';
import { KeywordsAddedDto, KeywordsBodyDto, ResourceKeywordsDto } from './dto/keywords.dto';
import { KeywordsService } from './keywords.service';

const TOKEN_HEADER = { name: SOURCE_TOKEN, required: true, description: "the user's token at the target" };

@ApiTags('keywords')
@Controller('api_v1/targets/:targetName/resources/:resourceId/keywords')
export class ResourceKeywordsController {
  constructor(private readonly keywords: KeywordsService) {}

  @Get()
  @ApiOperation({
    summary: "A resource's keywords, with what the keyword enhancer adds to them",
    description:
      "The target's own keywords and those of the resource's PRESQT_FTS_METADATA.json, normalized.",
  })
  @ApiHeader(TOKEN_HEADER)
  @ApiOkResponse({ type: ResourceKeywordsDto })
  @ApiErrors({
    400: 'token header missing; the target lacks keywords; this kind of resource has no keywords',
    401: 'invalid token',
    403: 'no access to the resource',
    404: 'invalid target name or resource id',
  })
  read(
    @Param('targetName') targetName: string,
    @Param('resourceId') resourceId: string,
    @RequiredHeader(SOURCE_TOKEN) token: string,
  ): Promise<ResourceKeywordsDto> {
    return this.keywords.read(targetName, resourceId, token);
  }

  @Post()
  @HttpCode(202)
  @ApiOperation({
    summary: 'Add keywords to a resource',
    description:
      'Written at once, to the target and to the metadata file (which records the change as an action).',
  })
  @ApiHeader(TOKEN_HEADER)
  @ApiAcceptedResponse({ type: KeywordsAddedDto })
  @ApiErrors({
    400:
      'token header missing; the target lacks keywords or keywords_upload; this kind of resource has no ' +
      'keywords; keywords missing or not a list of strings',
    401: 'invalid token',
    403: 'no access to the resource',
    404: 'invalid target name or resource id',
  })
  add(
    @Param('targetName') targetName: string,
    @Param('resourceId') resourceId: string,
    @RequiredHeader(SOURCE_TOKEN) token: string,
    @Body(strictValidation('body field')) body: KeywordsBodyDto,
  ): Promise<KeywordsAddedDto> {
    return this.keywords.add(targetName, resourceId, token, body.keywords);
  }
}

@ApiTags('services')
@Controller('api_v1/services/presqt/keyword_enhancement')
export class KeywordEnhancementController {
  constructor(private readonly keywords: KeywordsService) {}

  @Post()
  @HttpCode(202)
  @ApiOperation({
    summary: 'Enhance keywords: synonyms and broader terms from the configured vocabulary',
    description: 'Older clients send the same body with GET, which works too.',
  })
  @ApiAcceptedResponse({ type: KeywordsAddedDto })
  @ApiErrors({ 400: 'keywords missing or not a list of strings' })
  enhance(@Body(strictValidation('body field')) body: KeywordsBodyDto): Promise<KeywordsAddedDto> {
    return this.keywords.enhance(body.keywords);
  }

  @Get()
  @HttpCode(202)
  @ApiOperation({ summary: 'Enhance keywords (GET with a JSON body, for older clients)' })
  @ApiAcceptedResponse({ type: KeywordsAddedDto })
  @ApiErrors({ 400: 'keywords missing or not a list of strings' })
  enhanceByGet(@Body(strictValidation('body field')) body: KeywordsBodyDto): Promise<KeywordsAddedDto> {
    return this.keywords.enhance(body.keywords);
  }
}
