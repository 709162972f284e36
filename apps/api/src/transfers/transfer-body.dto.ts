import { ApiProperty } from '@nestjs/swagger';
import { CheckedField, keywordListProblem, textProblem } from '../common/checked-field.decorator';

const missing = (field: string) => `PresQT Error: ${field} was not found in the request body.`;

/** Body of a transfer (a JSON POST on the upload paths). */
export class TransferBodyDto {
  @ApiProperty({ example: 'lab', description: 'the target to transfer from' })
  @CheckedField(missing('source_target_name'), textProblem('source_target_name'))
  source_target_name!: string;

  @ApiProperty({ description: 'id of the resource to transfer, at the source target' })
  @CheckedField(missing('source_resource_id'), (value) =>
    typeof value === 'string' && /\S/.test(value)
      ? undefined
      : "PresQT Error: source_resource_id can't be None or blank.",
  )
  source_resource_id!: string;

  @ApiProperty({ type: [String], description: 'keywords to add (used by the manual and automatic actions)' })
  @CheckedField(missing('keywords'), keywordListProblem)
  keywords!: string[];
}
