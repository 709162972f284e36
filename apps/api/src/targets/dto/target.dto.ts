import { ApiProperty } from '@nestjs/swagger';
import { HASH_ALGORITHMS, SEARCH_FILTERS } from '@app/connectors';
import { LinkDto } from '../../common/dto/error.dto';

class SupportedActionsDto {
  @ApiProperty() resource_collection!: boolean;
  @ApiProperty() resource_detail!: boolean;
  @ApiProperty() resource_download!: boolean;
  @ApiProperty() resource_upload!: boolean;
  @ApiProperty() resource_transfer_in!: boolean;
  @ApiProperty() resource_transfer_out!: boolean;
  @ApiProperty() keywords!: boolean;
  @ApiProperty() keywords_upload!: boolean;
}

class TransferPartnersDto {
  @ApiProperty({ type: [String], example: ['archive', 'osf'] }) transfer_in!: string[];
  @ApiProperty({ type: [String], example: ['archive', 'zenodo'] }) transfer_out!: string[];
}

export class TargetDto {
  @ApiProperty({ example: 'lab', description: 'target identifier used in paths' }) name!: string;
  @ApiProperty({ example: 'Lab Storage (demo)' }) readable_name!: string;
  @ApiProperty({ description: "address of the target's own API" }) status_url!: string;
  @ApiProperty({ description: 'where a user gets a token for the target' }) token_url!: string;
  @ApiProperty({ type: SupportedActionsDto }) supported_actions!: SupportedActionsDto;
  @ApiProperty({ type: TransferPartnersDto }) supported_transfer_partners!: TransferPartnersDto;
  @ApiProperty({ enum: HASH_ALGORITHMS, isArray: true }) supported_hash_algorithms!: string[];
  @ApiProperty({ description: 'whether the target allows unlimited nesting' }) infinite_depth!: boolean;
  @ApiProperty({ enum: SEARCH_FILTERS, isArray: true, description: 'search filters the collection accepts' })
  search_parameters!: string[];
  @ApiProperty({
    type: [LinkDto],
    description:
      'in the list: Detail; in the detail: Collection, Upload, Transfer (as the target supports them)',
  })
  links!: LinkDto[];
}
