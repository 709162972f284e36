/** The services this deployment offers besides the targets, by their path segment. */
export interface ServiceDescription {
  name: string;
  readable_name: string;
}

export const SERVICE_CATALOGUE: readonly ServiceDescription[] = [
  { name: 'presqt', readable_name: 'Keyword Enhancement' },
  { name: 'emulation', readable_name: 'Emulation (EaaSI proposals)' },
  { name: 'assessment', readable_name: 'FAIR Assessment' },
];
