import { ApiProperty } from '@nestjs/swagger';
import { CheckedField, textProblem } from '../../common/checked-field.decorator';

/** Body of a proposal start. */
export class ProposalBodyDto {
  @ApiProperty({
    example: '5b1c7d0e9f3a4c2b8e6d1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b0c',
    description: "the ticket_number of this token's finished download",
  })
  @CheckedField("PresQT Error: 'ticket_number' missing in the request body.", textProblem('ticket_number'))
  ticket_number!: string;
}

/** Query of the emulation download. */
export class EmulationDownloadQueryDto {
  @ApiProperty({ description: 'the single-use token given to the emulation service with the data URL' })
  @CheckedField("PresQT Error: 'emulation_token' not found as query parameter.", (value) =>
    typeof value !== 'string'
      ? "PresQT Error: the 'emulation_token' query parameter must be given once."
      : /\S/.test(value)
        ? undefined
        : "PresQT Error: 'emulation_token' not found as query parameter.",
  )
  emulation_token!: string;
}

export class ProposalStartedDto {
  @ApiProperty({ example: '19', description: "the proposal task's id at the emulation service" }) id!: string;
  @ApiProperty({ example: 'Proposal task was submitted.' }) message!: string;
  @ApiProperty({ example: 'https://presqt.example.org/api_v1/services/emulation/proposals/19/' })
  proposal_link!: string;
}

export class ProposalPendingDto {
  @ApiProperty({ example: 'Proposal task is still in progress.' }) message!: string;
}

export class ProposalDto {
  @ApiProperty({
    example:
      'https://eaasi-portal.emulation.cloud/blobstore/api/v1/blobs/imagebuilder-outputs/2ca330d6?access_token=default',
  })
  image_url!: string;

  @ApiProperty({ example: 'cdrom' }) image_type!: string;
  @ApiProperty({ type: [String], description: 'ids of emulation environments that can open the image' })
  environments!: unknown[];

  @ApiProperty({ type: 'object', additionalProperties: true, description: 'suggested environments by id' })
  suggested!: Record<string, unknown>;
}
