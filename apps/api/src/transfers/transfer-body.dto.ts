import { ApiProperty } from '@nestjs/swagger';
import { IsArray, IsDefined, IsNotEmpty, IsString } from 'class-validator';

const missing = (field: string) => ({ message: `PresQT Error: ${field} was not found in the request body.` });

/** Body of a transfer (a JSON POST on the upload paths). */
export class TransferBodyDto {
  @ApiProperty({ example: 'lab', description: 'the target to transfer from' })
  @IsDefined(missing('source_target_name'))
  @IsString({ message: 'PresQT Error: source_target_name must be a string.' })
  source_target_name!: string;

  @ApiProperty({ description: 'id of the resource to transfer, at the source target' })
  @IsDefined(missing('source_resource_id'))
  @IsString({ message: "PresQT Error: source_resource_id can't be None or blank." })
  @IsNotEmpty({ message: "PresQT Error: source_resource_id can't be None or blank." })
  source_resource_id!: string;

  @ApiProperty({ type: [String], description: 'keywords to add (used by the manual and automatic actions)' })
  @IsDefined(missing('keywords'))
  @IsArray({ message: 'PresQT Error: keywords must be in list format.' })
  @IsString({ each: true, message: 'PresQT Error: keywords must be a list of strings.' })
  keywords!: string[];
}
