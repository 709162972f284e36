import { ApiProperty } from '@nestjs/swagger';

export class TargetStatusDto {
  @ApiProperty({ example: 'osf' }) name!: string;
  @ApiProperty({ example: 'osf', description: 'the same as name; the field existing clients read' })
  service!: string;
  @ApiProperty({ example: 'OSF' }) readable_name!: string;
  @ApiProperty({ enum: ['ok', 'error'] }) status!: string;
  @ApiProperty({ example: 'Connected to server successfully' }) detail!: string;
}
