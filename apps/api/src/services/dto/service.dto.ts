import { ApiProperty } from '@nestjs/swagger';
import { LinkDto } from '../../common/dto/error.dto';

export class ServiceDto {
  @ApiProperty({ example: 'assessment', description: 'service identifier used in paths' }) name!: string;
  @ApiProperty({ example: 'FAIR Assessment' }) readable_name!: string;
  @ApiProperty({
    required: false,
    example: 'assessment',
    description: 'only on the names the PresQT web client uses: the service this name stands for',
  })
  alias_of?: string;
  @ApiProperty({ type: [LinkDto] }) links!: LinkDto[];
}
