import { ApiProperty } from '@nestjs/swagger';
import { LinkDto } from '../../common/dto/error.dto';

export class ResourceSummaryDto {
  @ApiProperty({ enum: ['container', 'item'] }) kind!: string;
  @ApiProperty({ example: 'project', description: 'project, folder, file, ... as the target names it' })
  kind_name!: string;
  @ApiProperty({
    example: 'U29pbCBNb2lzdHVyZSBTdHVkeQ',
    description: 'resource id at the target; never holds a dot',
  })
  id!: string;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'id of the containing resource; null at the top level',
  })
  container!: string | null;
  @ApiProperty({ example: 'Soil Moisture Study' }) title!: string;
  @ApiProperty({ type: [LinkDto], description: 'Detail (GET)' }) links!: LinkDto[];
}

class HashesDto {
  @ApiProperty({ type: String, nullable: true }) md5!: string | null;
  @ApiProperty({ type: String, nullable: true }) sha256!: string | null;
}

export class ResourceDetailDto {
  @ApiProperty({ enum: ['container', 'item'] }) kind!: string;
  @ApiProperty({ example: 'file' }) kind_name!: string;
  @ApiProperty() id!: string;
  @ApiProperty({
    format: 'uri',
    description: "the resource's address at this service (its Detail link), which FAIR services are given",
  })
  identifier!: string;
  @ApiProperty() title!: string;
  @ApiProperty({ format: 'date-time' }) date_created!: string;
  @ApiProperty({ format: 'date-time' }) date_modified!: string;
  @ApiProperty({ type: HashesDto }) hashes!: HashesDto;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'target-specific; the filesystem gives path, size, file_count, provider',
  })
  extra!: Record<string, unknown>;
  @ApiProperty({ type: [ResourceSummaryDto] }) children!: ResourceSummaryDto[];
  @ApiProperty({
    type: [LinkDto],
    description:
      'Detail, Download (the .zip path), and for containers Upload and Transfer, as the target supports them',
  })
  links!: LinkDto[];
  @ApiProperty({ type: [String], example: ['Transfer'] }) actions!: string[];
}

class PagesDto {
  @ApiProperty() first_page!: string;
  @ApiProperty({ type: String, nullable: true }) previous_page!: string | null;
  @ApiProperty({ type: String, nullable: true }) next_page!: string | null;
  @ApiProperty() last_page!: string;
  @ApiProperty() total_pages!: number;
  @ApiProperty() per_page!: number;
  @ApiProperty({ description: 'URL prefix ending in `page=`; append a page number' }) base_page!: string;
}

export class ResourceCollectionDto {
  @ApiProperty({ type: [ResourceSummaryDto] }) resources!: ResourceSummaryDto[];
  @ApiProperty({ type: PagesDto }) pages!: PagesDto;
}
