import { createHash } from 'node:crypto';

/**
 * The `characterization` CurateND shows of a file: the FITS report made when the file was deposited
 * (ndlib/curate_nd app/presenters/api/show_item_presenter.rb, process_characterization, passes it on as a
 * string).
 * Modelled on a report the live API gave (captured in ndlib/marble-manifest-pipeline,
 * curate_export/test/pv63fx74g23_get_members_details_get_json_given_url.json).
 *
 * - `fits`: the usual report, with size and md5 in `<fileinfo>`;
 * - `namespaced`: the same elements with a namespace prefix (`<ns0:md5checksum>`), as some reports have
 *   (marble-manifest-pipeline strips `ns0:`, `ns1:`, `ns2:` before reading them);
 * - `without-size`: a report in which no tool measured the size;
 * - `missing`: no report at all (characterization runs after the deposit, so a new file has none yet).
 */
export type CharacterizationStyle = 'fits' | 'namespaced' | 'without-size' | 'missing';

export function characterization(
  content: Buffer,
  label: string,
  mimeType: string,
  style: CharacterizationStyle,
): string | undefined {
  if (style === 'missing') return undefined;
  const ns = style === 'namespaced' ? 'ns0:' : '';
  const md5 = createHash('md5').update(content).digest('hex');
  const element = (name: string, tool: string, value: string | number) =>
    `    <${ns}${name} toolname="${tool}" status="SINGLE_RESULT">${value}</${ns}${name}>`;
  return [
    `<${ns}fits xmlns${ns ? ':ns0' : ''}="http://hul.harvard.edu/ois/xml/ns/fits/fits_output" version="0.6.2">`,
    `  <${ns}identification>`,
    `    <${ns}identity format="${mimeType}" mimetype="${mimeType}" toolname="FITS" toolversion="0.6.2"/>`,
    `  </${ns}identification>`,
    `  <${ns}fileinfo>`,
    ...(style === 'without-size' ? [] : [element('size', 'Jhove', content.length)]),
    element('filepath', 'OIS File Information', `/tmp/${label}`),
    element('md5checksum', 'OIS File Information', md5),
    `  </${ns}fileinfo>`,
    `</${ns}fits>`,
  ].join('\n');
}
