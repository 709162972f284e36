import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiResponse } from '@nestjs/swagger';

export class ErrorDto {
  @ApiProperty({ example: "PresQT Error: 'presqt-source-token' missing in the request headers." })
  error!: string;
}

export class LinkDto {
  @ApiProperty({ example: 'Detail' }) name!: string;
  @ApiProperty({ example: 'https://presqt.example.org/api_v1/targets/lab/' }) link!: string;
  @ApiProperty({ enum: ['GET', 'POST', 'PATCH'] }) method!: string;
}

/** Documents error answers: status code → when it happens. Every one has the `{"error": ...}` body. */
export function ApiErrors(cases: Record<number, string>) {
  return applyDecorators(
    ...Object.entries(cases).map(([status, description]) =>
      ApiResponse({ status: Number(status), description, type: ErrorDto }),
    ),
  );
}
