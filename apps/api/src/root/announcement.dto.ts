import { ApiProperty } from '@nestjs/swagger';

export class AnnouncementDto {
  @ApiProperty({ example: true, description: 'whether there is an announcement to show' }) show!: boolean;
  @ApiProperty({
    example: 'Maintenance on Saturday 10:00-12:00 UTC.',
    description: 'empty when show is false',
  })
  message!: string;
}
