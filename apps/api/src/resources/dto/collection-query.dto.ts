import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches } from 'class-validator';

const once = (name: string) => ({
  message: `PresQT Error: the '${name}' query parameter must be given once.`,
});

/** Query of a resource collection: at most one search filter, and a page. */
export class CollectionQueryDto {
  @ApiPropertyOptional({ description: 'search: any text: title, author or keywords' })
  @IsOptional()
  @IsString(once('general'))
  general?: string;

  @ApiPropertyOptional({ description: 'search: part of the title' })
  @IsOptional()
  @IsString(once('title'))
  title?: string;

  @ApiPropertyOptional({ description: 'search: a resource id (any depth)' })
  @IsOptional()
  @IsString(once('id'))
  id?: string;

  @ApiPropertyOptional({ description: 'search: part of an author name' })
  @IsOptional()
  @IsString(once('author'))
  author?: string;

  @ApiPropertyOptional({ description: 'search: a keyword' })
  @IsOptional()
  @IsString(once('keywords'))
  keywords?: string;

  @ApiPropertyOptional({ description: 'page number, from 1', example: '1' })
  @IsOptional()
  @Matches(/^[1-9]\d{0,8}$/, {
    message: 'PresQT Error: The page query is not formatted correctly. Page must be a positive integer.',
  })
  page?: string;
}
