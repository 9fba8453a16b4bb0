/*
 * The SPA's icons, drawn inline instead of loading the primeicons font (issue 27): the font and
 * its CSS were the home page's second largest download, for the few dozen glyphs we show. One
 * export per icon, so that the build leaves out any icon no view draws any more.
 *
 * The drawings are primeicons 7.0.0's (raw-svg/, filled, on a 24 x 24 grid whose middle 20 x 20
 * they keep to: that square is the one shown, so that they are as large as the font's glyphs were;
 * coordinates rounded to hundredths). primeicons 8, the font they replace, is no longer MIT:
 * PrimeUI's license forbids extracting its drawings. primeicons 7.0.0's license:
 *
 * MIT License. Copyright (c) 2018-2021 PrimeTek. Permission is hereby granted, free of charge, to
 * any person obtaining a copy of this software and associated documentation files (the
 * "Software"), to deal in the Software without restriction, including without limitation the
 * rights to use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies of the
 * Software, and to permit persons to whom the Software is furnished to do so, subject to the
 * following conditions: The above copyright notice and this permission notice shall be included in
 * all copies or substantial portions of the Software. THE SOFTWARE IS PROVIDED "AS IS", WITHOUT
 * WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF
 * MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
 * AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN
 * ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE
 * OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
 */

export interface IconShape {
  /** primeicons' name for it, written on the element as `data-icon`. */
  readonly name: string;
  readonly paths: readonly string[];
  /** Drawn with holes by the even-odd rule rather than by the paths' direction. */
  readonly evenodd?: true;
}

/**
 * An icon one em square on the text's baseline, in the text's colour. Decorative unless given a
 * `label`, which makes it an image with that name (a busy indicator with no text beside it).
 */
export function Icon({
  shape,
  spin = false,
  label,
  className,
}: {
  shape: IconShape;
  spin?: boolean;
  label?: string;
  className?: string;
}) {
  const classes = ['tp-icon', spin && 'tp-icon-spin', className].filter(Boolean).join(' ');
  const name = label === undefined ? { 'aria-hidden': true } : { role: 'img', 'aria-label': label };
  return (
    <svg
      className={classes}
      data-icon={shape.name}
      viewBox="2 2 20 20"
      width="1em"
      height="1em"
      fill="currentColor"
      fillRule={shape.evenodd ? 'evenodd' : undefined}
      focusable="false"
      {...name}
    >
      {shape.paths.map((d) => (
        <path key={d} d={d} />
      ))}
    </svg>
  );
}

export const piAngleDoubleLeft: IconShape = {
  name: 'angle-double-left',
  paths: [
    'M11 16.25a.74.74 0 0 1-.53-.22L7 12.53a.75.75 0 0 1 0-1.06L10.47 8A.75.75 0 0 1 11.53 9l-3 3 3 3a.75.75 0 0 1 0 1.06A.74.74 0 0 1 11 16.25Z',
    'M16.5 16.25A.74.74 0 0 1 16 16l-3.5-3.5a.75.75 0 0 1 0-1.06L16 8A.75.75 0 0 1 17 9l-3 3 3 3A.75.75 0 0 1 17 16 .74.74 0 0 1 16.5 16.25Z',
  ],
};
export const piAngleDown: IconShape = {
  name: 'angle-down',
  paths: [
    'M12 14.5a.74.74 0 0 1-.53-.22L8 10.78A.75.75 0 0 1 9 9.72l3 3 3-3A.75.75 0 0 1 16 10.78l-3.5 3.5A.74.74 0 0 1 12 14.5Z',
  ],
};
export const piAngleRight: IconShape = {
  name: 'angle-right',
  paths: [
    'M10.25 16.25A.74.74 0 0 1 9.72 16a.75.75 0 0 1 0-1.06l3-3-3-3A.75.75 0 0 1 10.78 8l3.5 3.5a.75.75 0 0 1 0 1.06L10.78 16A.74.74 0 0 1 10.25 16.25Z',
  ],
};
export const piBars: IconShape = {
  name: 'bars',
  paths: [
    'M19 12.75H5a.75.75 0 0 1 0-1.5H19a.75.75 0 0 1 0 1.5Z',
    'M19 8.25H5a.75.75 0 0 1 0-1.5H19a.75.75 0 0 1 0 1.5Z',
    'M19 17.25H5a.75.75 0 0 1 0-1.5H19a.75.75 0 0 1 0 1.5Z',
  ],
};
export const piClipboard: IconShape = {
  name: 'clipboard',
  paths: [
    'M11.22 4.75C10.69 4.75 10.25 5.19 10.25 5.72V7.19H13.75V5.72C13.75 5.19 13.31 4.75 12.78 4.75H11.22ZM15.13 4.97H16C17.52 4.97 18.75 6.2 18.75 7.72V18C18.75 19.52 17.52 20.75 16 20.75H8C6.48 20.75 5.25 19.52 5.25 18V7.72C5.25 6.2 6.48 4.97 8 4.97H8.87C9.18 3.97 10.12 3.25 11.22 3.25H12.78C13.88 3.25 14.82 3.97 15.13 4.97ZM15.25 6.47V7.84C15.25 8.31 14.87 8.69 14.4 8.69H9.6C9.13 8.69 8.75 8.31 8.75 7.84V6.47H8C7.31 6.47 6.75 7.03 6.75 7.72V18C6.75 18.69 7.31 19.25 8 19.25H16C16.69 19.25 17.25 18.69 17.25 18V7.72C17.25 7.03 16.69 6.47 16 6.47H15.25Z',
  ],
  evenodd: true,
};
export const piDesktop: IconShape = {
  name: 'desktop',
  paths: [
    'M19 16.75H5A1.76 1.76 0 0 1 3.25 15V5A1.76 1.76 0 0 1 5 3.25H19A1.76 1.76 0 0 1 20.75 5V15A1.76 1.76 0 0 1 19 16.75ZM5 4.75A.25.25 0 0 0 4.75 5V15a.25.25 0 0 0 .25.25H19a.25.25 0 0 0 .25-.25V5A.25.25 0 0 0 19 4.75Z',
    'M15 20.75H12a.76.76 0 0 1-.75-.75V16a.75.75 0 0 1 1.5 0v3.25H15a.75.75 0 0 1 0 1.5Z',
    'M12 20.75H9a.75.75 0 0 1 0-1.5h3a.75.75 0 0 1 0 1.5Z',
  ],
};
export const piDownload: IconShape = {
  name: 'download',
  paths: [
    'M18.22 20.75H5.78A2.64 2.64 0 0 1 3.25 18V15a.75.75 0 0 1 1.5 0v3a1.16 1.16 0 0 0 1 1.25H18.22a1.16 1.16 0 0 0 1-1.25V15a.75.75 0 0 1 1.5 0v3A2.64 2.64 0 0 1 18.22 20.75Z',
    'M12 15.75a.74.74 0 0 1-.53-.22l-4-4a.75.75 0 0 1 1.06-1.06L12 13.94l3.47-3.47a.75.75 0 0 1 1.06 1.06l-4 4A.74.74 0 0 1 12 15.75Z',
    'M12 15.75a.76.76 0 0 1-.75-.75V4a.75.75 0 0 1 1.5 0V15A.76.76 0 0 1 12 15.75Z',
  ],
};
export const piExclamationTriangle: IconShape = {
  name: 'exclamation-triangle',
  paths: [
    'M20 18.75H4a.76.76 0 0 1-.65-.37.77.77 0 0 1 0-.75l8-14a.78.78 0 0 1 1.3 0l8 14a.77.77 0 0 1 0 .75A.76.76 0 0 1 20 18.75ZM5.29 17.25H18.71L12 5.51Z',
    'M12 13.25a.76.76 0 0 1-.75-.75V9a.75.75 0 0 1 1.5 0v3.5A.76.76 0 0 1 12 13.25Z',
    'M12 16.25a.76.76 0 0 1-.75-.75V15a.75.75 0 0 1 1.5 0v.5A.76.76 0 0 1 12 16.25Z',
  ],
};
export const piEye: IconShape = {
  name: 'eye',
  paths: [
    'M12 18.75c-5.83 0-8.57-6.19-8.69-6.45a.78.78 0 0 1 0-.6c.12-.26 2.86-6.45 8.69-6.45s8.57 6.19 8.69 6.45a.78.78 0 0 1 0 .6C20.57 12.56 17.83 18.75 12 18.75ZM4.83 12c.59 1.15 3 5.25 7.17 5.25s6.58-4.1 7.17-5.25c-.59-1.15-3-5.25-7.17-5.25S5.42 10.85 4.83 12Z',
    'M12 15.25A3.25 3.25 0 1 1 15.25 12 3.26 3.26 0 0 1 12 15.25Zm0-5A1.75 1.75 0 1 0 13.75 12 1.76 1.76 0 0 0 12 10.25Z',
  ],
};
export const piFilePdf: IconShape = {
  name: 'file-pdf',
  paths: [
    'M18.53 9 13 3.47a.75.75 0 0 0-.53-.22H8A2.75 2.75 0 0 0 5.25 6V18A2.75 2.75 0 0 0 8 20.75h8A2.75 2.75 0 0 0 18.75 18V9.5A.75.75 0 0 0 18.53 9ZM13.25 5.81l2.94 2.94H13.25ZM16 19.25H8A1.25 1.25 0 0 1 6.75 18V6A1.25 1.25 0 0 1 8 4.75h3.75V9.5a.76.76 0 0 0 .75.75h4.75V18A1.25 1.25 0 0 1 16 19.25Z',
    'M13.49 14.85a3.15 3.15 0 0 1-1.31-1.66 4.44 4.44 0 0 0 .19-2A.8.8 0 0 0 10.85 11a5 5 0 0 0 .25 2.4A29 29 0 0 1 9.83 16C9.12 16.4 8.15 17 8 17.69c-.12.56.93 2 2.72-1.12a18.58 18.58 0 0 1 2.44-.72 4.72 4.72 0 0 0 2 .61.82.82 0 0 0 .62-1.38C15.36 14.65 14.11 14.77 13.49 14.85Zm-4.78 3A4.32 4.32 0 0 1 9.8 16.61C9.12 17.69 8.71 17.88 8.71 17.86Zm2.92-6.81c.26 0 .24 1.15.06 1.46A3.07 3.07 0 0 1 11.63 11.05Zm-.87 4.88A14.76 14.76 0 0 0 11.64 14a3.88 3.88 0 0 0 1.08 1.26A12.35 12.35 0 0 0 10.76 15.93Zm4.7-.18s-.18.22-1.33-.28C15.38 15.38 15.59 15.67 15.46 15.75Z',
  ],
};
export const piFolderOpen: IconShape = {
  name: 'folder-open',
  paths: [
    'M4.25 18.5H2.75V7.5A2.71 2.71 0 0 1 5.43 4.75H7.84A.76.76 0 0 1 8.42 5l2.67 3.23H16A2.71 2.71 0 0 1 18.72 11v.5h-1.5V11A1.22 1.22 0 0 0 16 9.75H10.73a.74.74 0 0 1-.57-.27L7.49 6.25H5.43A1.22 1.22 0 0 0 4.25 7.5Z',
    'M17.12 19.25H3.5a.76.76 0 0 1-.64-.36.75.75 0 0 1 0-.74l3.38-6.5a.77.77 0 0 1 .67-.4H20.5a.76.76 0 0 1 .64.36.75.75 0 0 1 0 .74l-3.38 6.5A.77.77 0 0 1 17.12 19.25ZM4.73 17.75H16.67l2.6-5H7.33Z',
  ],
};
export const piHistory: IconShape = {
  name: 'history',
  paths: [
    'M18.05 6.08a8.39 8.39 0 0 0-11.84 0L5 7.29V4.38a.75.75 0 0 0-1.5 0V9.12a.76.76 0 0 0 .75.76H9a.75.75 0 0 0 0-1.5H6L7.27 7.14a6.88 6.88 0 0 1 9.72 0c6.19 6.69-3 15.91-9.72 9.72a.75.75 0 0 0-1.06 0 .74.74 0 0 0 0 1.06A8.37 8.37 0 0 0 18.05 6.08Z',
    'M12 7.75a.76.76 0 0 0-.75.75V12a.75.75 0 0 0 .22.53L14 15a.74.74 0 0 0 .53.22A.75.75 0 0 0 15 14l-2.28-2.28V8.5A.76.76 0 0 0 12 7.75Z',
  ],
};
export const piImages: IconShape = {
  name: 'images',
  paths: [
    'M18.5 3.75H8.5A2.75 2.75 0 0 0 5.75 6.5v.25H5.5A2.75 2.75 0 0 0 2.75 9.5v8A2.75 2.75 0 0 0 5.5 20.25h10a2.75 2.75 0 0 0 2.75-2.75v-.25h.25a2.75 2.75 0 0 0 2.75-2.75v-8A2.75 2.75 0 0 0 18.5 3.75ZM7.25 6.5A1.25 1.25 0 0 1 8.5 5.25h10A1.25 1.25 0 0 1 19.75 6.5v6.2l-2.27-1.91a.74.74 0 0 0-1.05.08l-1.07 1.26-4-3.88A.7.7 0 0 0 10.84 8a.75.75 0 0 0-.54.26L7.25 11.89ZM8.5 15.75A1.25 1.25 0 0 1 7.25 14.5v-.3l3.67-4.32 3.46 3.39-2.1 2.48Zm8.25 1.75a1.25 1.25 0 0 1-1.25 1.25H5.5A1.25 1.25 0 0 1 4.25 17.5v-8A1.25 1.25 0 0 1 5.5 8.25h.25V14.5A2.75 2.75 0 0 0 8.5 17.25h8.25Zm1.75-1.75H14.25l2.84-3.34 2.63 2.23A1.23 1.23 0 0 1 18.5 15.75Z',
  ],
};
export const piLink: IconShape = {
  name: 'link',
  paths: [
    'M7.23 18.25A4 4 0 0 1 4.4 17.09a4.23 4.23 0 0 1 .15-5.95L8.31 7.35A4.44 4.44 0 0 1 11.42 6 4 4 0 0 1 14.25 7.2a4.25 4.25 0 0 1-.15 6l-1.26 1.26a.75.75 0 1 1-1.06-1.06L13 12.1a2.73 2.73 0 0 0 .14-3.84 2.77 2.77 0 0 0-3.8.15L5.61 12.19A2.74 2.74 0 0 0 5.46 16a2.5 2.5 0 0 0 2 .71.74.74 0 0 1 .81.67.75.75 0 0 1-.67.82Z',
    'M12.58 18A4 4 0 0 1 9.75 16.8a4.25 4.25 0 0 1 .15-6l1.26-1.26a.75.75 0 1 1 1.06 1.06L11 11.9a2.73 2.73 0 0 0-.14 3.84 2.77 2.77 0 0 0 3.8-.15l3.77-3.78A2.74 2.74 0 0 0 18.54 8a2.5 2.5 0 0 0-2-.71.74.74 0 0 1-.81-.67.75.75 0 0 1 .67-.82A4 4 0 0 1 19.6 6.91a4.23 4.23 0 0 1-.15 5.95l-3.76 3.79A4.44 4.44 0 0 1 12.58 18Z',
  ],
};
export const piMegaphone: IconShape = {
  name: 'megaphone',
  paths: [
    'M18.17 4.44h-1.34c-1.01 0-1.83.82-1.83 1.83v.45l-9.5 2.04v-.51c0-.41-.34-.75-.75-.75s-.75.34-.75.75v7c0 .41.34.75.75.75s.75-.34.75-.75v-.63l9.5 2.04v.45c0 1.01.82 1.83 1.83 1.83h1.34c1.01 0 1.83-.82 1.83-1.83V6.27c0-1.01-.82-1.83-1.83-1.83ZM5.5 13.08v-2.79l9.5-2.04v6.87l-9.5-2.04Zm13 4.03c0 .18-.15.33-.33.33h-1.34c-.18 0-.33-.15-.33-.33V6.27c0-.18.15-.33.33-.33h1.34c.18 0 .33.15.33.33v10.84Zm-5.53.52c-.37 1.16-1.44 1.94-2.67 1.94-1.54 0-2.8-1.24-2.8-2.75 0-.11 0-.23.02-.34.05-.41.43-.7.84-.65.41.05.7.42.65.83 0 .05 0 .1 0 .15 0 .69.58 1.25 1.3 1.25.57 0 1.07-.36 1.24-.89.12-.4.55-.62.94-.49.4.12.61.55.49.94Z',
  ],
};
export const piPencil: IconShape = {
  name: 'pencil',
  paths: [
    'M4.21 20.52a.73.73 0 0 1-.52-.21.75.75 0 0 1-.22-.6l.31-3.84A.73.73 0 0 1 4 15.4L15.06 4.34a3.19 3.19 0 0 1 2.28-.86 3.3 3.3 0 0 1 2.25.91 3.31 3.31 0 0 1 .11 4.5L8.63 20a.77.77 0 0 1-.46.22l-3.89.35Zm1-4.26L5 19l2.74-.25L18.64 7.83A1.72 1.72 0 0 0 17.31 5a1.61 1.61 0 0 0-1.19.42h0ZM15.59 4.87h0Z',
  ],
};
export const piPlay: IconShape = {
  name: 'play',
  paths: [
    'M8.5 19.75a.75.75 0 0 1-.29-.06A.74.74 0 0 1 7.75 19V5A.75.75 0 0 1 9 4.47l7 7a.75.75 0 0 1 0 1.06l-7 7A.77.77 0 0 1 8.5 19.75ZM9.25 6.81V17.19L14.44 12Z',
  ],
};
export const piPlus: IconShape = {
  name: 'plus',
  paths: [
    'M12.75 11.25V5a.75.75 0 0 0-1.5 0v6.25H5a.75.75 0 0 0 0 1.5h6.25V19a.76.76 0 0 0 .75.75.75.75 0 0 0 .75-.75V12.75H19a.75.75 0 0 0 .75-.75.76.76 0 0 0-.75-.75Z',
  ],
};
export const piPowerOff: IconShape = {
  name: 'power-off',
  paths: [
    'M12 21A9 9 0 0 1 5.64 5.64a.74.74 0 0 1 1.06 0 .75.75 0 0 1 0 1.06A7.5 7.5 0 1 0 17.3 17.3a7.48 7.48 0 0 0 0-10.6.75.75 0 0 1 0-1.06.74.74 0 0 1 1.06 0A9 9 0 0 1 12 21Z',
    'M12 12.75a.76.76 0 0 1-.75-.75V4a.75.75 0 0 1 1.5 0v8A.76.76 0 0 1 12 12.75Z',
  ],
};
export const piRefresh: IconShape = {
  name: 'refresh',
  paths: [
    'M12 20.75a7.25 7.25 0 0 1 0-14.5h2.5a.75.75 0 0 1 0 1.5H12a5.75 5.75 0 1 0 5.75 5.75.75.75 0 0 1 1.5 0A7.26 7.26 0 0 1 12 20.75Z',
    'M12 10.75a.74.74 0 0 1-.53-.22.75.75 0 0 1 0-1.06L13.94 7 11.47 4.53a.75.75 0 1 1 1.06-1.06l3 3a.75.75 0 0 1 0 1.06l-3 3A.74.74 0 0 1 12 10.75Z',
  ],
};
export const piSave: IconShape = {
  name: 'save',
  paths: [
    'M17 20.75H7A2.75 2.75 0 0 1 4.25 18V6A2.75 2.75 0 0 1 7 3.25h7.5a.75.75 0 0 1 .53.22L19.53 8a.75.75 0 0 1 .22.53V18A2.75 2.75 0 0 1 17 20.75ZM7 4.75A1.25 1.25 0 0 0 5.75 6V18A1.25 1.25 0 0 0 7 19.25H17A1.25 1.25 0 0 0 18.25 18V8.81L14.19 4.75Z',
    'M16.75 20h-1.5V13.75H8.75V20H7.25V13.5A1.25 1.25 0 0 1 8.5 12.25h7a1.25 1.25 0 0 1 1.25 1.25Z',
    'M12.47 8.75H8.53a1.29 1.29 0 0 1-1.28-1.3V4h1.5V7.25h3.5V4h1.5V7.45A1.29 1.29 0 0 1 12.47 8.75Z',
  ],
};
export const piSearch: IconShape = {
  name: 'search',
  paths: [
    'M10.77 18.3a7.53 7.53 0 1 1 7.53-7.53A7.53 7.53 0 0 1 10.77 18.3Zm0-13.55a6 6 0 1 0 6 6A6 6 0 0 0 10.77 4.75Z',
    'M20 20.75a.74.74 0 0 1-.53-.22L15.34 16.4a.75.75 0 0 1 1.06-1.06l4.13 4.13a.75.75 0 0 1 0 1.06A.74.74 0 0 1 20 20.75Z',
  ],
};
export const piServer: IconShape = {
  name: 'server',
  paths: [
    'M20.5 8.5v-3a1 1 0 0 0-1-1H4.5a1 1 0 0 0-1 1v3a1 1 0 0 0 1 1 1 1 0 0 0-1 1v3a1 1 0 0 0 1 1 1 1 0 0 0-1 1v3a1 1 0 0 0 1 1h15a1 1 0 0 0 1-1v-3a1 1 0 0 0-1-1 1 1 0 0 0 1-1v-3a1 1 0 0 0-1-1A1 1 0 0 0 20.5 8.5Zm-1 10H4.5v-3h15Zm0-5H4.5v-3h15Zm0-5H4.5v-3h15Z',
    'M5.5 7a.75.75 0 1 0 1.5 0a.75.75 0 1 0-1.5 0Z',
    'M8 7a.75.75 0 1 0 1.5 0a.75.75 0 1 0-1.5 0Z',
    'M5.5 12a.75.75 0 1 0 1.5 0a.75.75 0 1 0-1.5 0Z',
    'M8 12a.75.75 0 1 0 1.5 0a.75.75 0 1 0-1.5 0Z',
    'M5.5 17a.75.75 0 1 0 1.5 0a.75.75 0 1 0-1.5 0Z',
    'M8 17a.75.75 0 1 0 1.5 0a.75.75 0 1 0-1.5 0Z',
  ],
};
export const piSignIn: IconShape = {
  name: 'sign-in',
  paths: [
    'M18 20.75H15a.75.75 0 0 1 0-1.5h3a1.16 1.16 0 0 0 1.25-1V5.78a1.16 1.16 0 0 0-1.25-1H15a.75.75 0 0 1 0-1.5h3a2.64 2.64 0 0 1 2.75 2.53V18.22A2.64 2.64 0 0 1 18 20.75Z',
    'M11 16.75a.74.74 0 0 1-.53-.22.75.75 0 0 1 0-1.06L13.94 12 10.47 8.53a.75.75 0 0 1 1.06-1.06l4 4a.75.75 0 0 1 0 1.06l-4 4A.74.74 0 0 1 11 16.75Z',
    'M15 12.75H4a.75.75 0 0 1 0-1.5H15a.75.75 0 0 1 0 1.5Z',
  ],
};
export const piSpinner: IconShape = {
  name: 'spinner',
  paths: [
    'M12 21A9 9 0 1 1 18.18 5.45a.75.75 0 0 1 0 1.06.74.74 0 0 1-1.06 0A7.51 7.51 0 1 0 19.5 12 .75.75 0 0 1 21 12 9 9 0 0 1 12 21Z',
  ],
};
export const piStop: IconShape = {
  name: 'stop',
  paths: [
    'M17 19.75H7A2.75 2.75 0 0 1 4.25 17V7A2.75 2.75 0 0 1 7 4.25H17A2.75 2.75 0 0 1 19.75 7V17A2.75 2.75 0 0 1 17 19.75ZM7 5.75A1.25 1.25 0 0 0 5.75 7V17A1.25 1.25 0 0 0 7 18.25H17A1.25 1.25 0 0 0 18.25 17V7A1.25 1.25 0 0 0 17 5.75Z',
  ],
};
export const piThumbtack: IconShape = {
  name: 'thumbtack',
  paths: [
    'M6.25 4C6.25 3.59 6.59 3.25 7 3.25H17C17.41 3.25 17.75 3.59 17.75 4C17.75 4.41 17.41 4.75 17 4.75H16.75V10C16.75 10.05 16.77 10.12 16.85 10.21C16.94 10.31 17.08 10.4 17.24 10.47C18.59 10.97 19.19 12.22 19.47 13.16C19.61 13.64 19.68 14.1 19.71 14.43C19.73 14.6 19.74 14.73 19.75 14.83C19.75 14.88 19.75 14.92 19.75 14.95L19.75 14.98L19.75 14.99L19.75 15L19.75 15C19.75 15 19.75 15 19 15H19.75C19.75 15.41 19.41 15.75 19 15.75H12.75V20C12.75 20.41 12.41 20.75 12 20.75C11.59 20.75 11.25 20.41 11.25 20V15.75H5C4.59 15.75 4.25 15.41 4.25 15H5C4.25 15 4.25 15 4.25 15L4.25 15L4.25 15L4.25 14.99L4.25 14.98L4.25 14.95C4.25 14.92 4.25 14.88 4.25 14.83C4.26 14.73 4.27 14.6 4.29 14.43C4.32 14.1 4.39 13.64 4.53 13.16C4.81 12.22 5.41 10.97 6.76 10.47C6.92 10.4 7.06 10.31 7.15 10.21C7.23 10.12 7.25 10.05 7.25 10V4.75H7C6.59 4.75 6.25 4.41 6.25 4ZM8.75 4.75V10C8.75 11.01 7.93 11.63 7.28 11.87C6.61 12.12 6.2 12.79 5.97 13.58C5.9 13.82 5.86 14.05 5.82 14.25H18.18C18.14 14.05 18.1 13.82 18.03 13.58C17.8 12.79 17.39 12.12 16.72 11.87C16.07 11.63 15.25 11.01 15.25 10V4.75H8.75Z',
  ],
  evenodd: true,
};
export const piTimes: IconShape = {
  name: 'times',
  paths: [
    'M13.06 12l4.42-4.42a.75.75 0 1 0-1.06-1.06L12 10.94 7.58 6.52A.75.75 0 0 0 6.52 7.58L10.94 12 6.52 16.42a.75.75 0 0 0 0 1.06.75.75 0 0 0 1.06 0L12 13.06l4.42 4.42a.75.75 0 0 0 1.06 0 .75.75 0 0 0 0-1.06Z',
  ],
};
export const piTimesCircle: IconShape = {
  name: 'times-circle',
  paths: [
    'M12 21a9 9 0 1 1 9-9A9 9 0 0 1 12 21ZM12 4.5A7.5 7.5 0 1 0 19.5 12 7.5 7.5 0 0 0 12 4.5Z',
    'M9 15.75a.74.74 0 0 1-.53-.22.75.75 0 0 1 0-1.06l6-6a.75.75 0 0 1 1.06 1.06l-6 6A.74.74 0 0 1 9 15.75Z',
    'M15 15.75a.74.74 0 0 1-.53-.22l-6-6A.75.75 0 0 1 9.53 8.47l6 6a.75.75 0 0 1 0 1.06A.74.74 0 0 1 15 15.75Z',
  ],
};
export const piTrash: IconShape = {
  name: 'trash',
  paths: [
    'M20 8.7H4A.75.75 0 1 1 4 7.2H20a.75.75 0 0 1 0 1.5Z',
    'M16.44 20.75H7.56A2.4 2.4 0 0 1 5 18.49V8a.75.75 0 0 1 1.5 0V18.49c0 .41.47.76 1 .76h8.88c.56 0 1-.35 1-.76V8A.75.75 0 1 1 19 8V18.49A2.4 2.4 0 0 1 16.44 20.75Zm.12-13A.74.74 0 0 1 15.81 7V5.51c0-.41-.48-.76-1-.76H9.22c-.55 0-1 .35-1 .76V7a.75.75 0 1 1-1.5 0V5.51A2.41 2.41 0 0 1 9.22 3.25h5.56a2.41 2.41 0 0 1 2.53 2.26V7A.75.75 0 0 1 16.56 7.76Z',
    'M10.22 17a.76.76 0 0 1-.75-.75V11.72a.75.75 0 0 1 1.5 0v4.52A.75.75 0 0 1 10.22 17Z',
    'M13.78 17a.75.75 0 0 1-.75-.75V11.72a.75.75 0 0 1 1.5 0v4.52A.76.76 0 0 1 13.78 17Z',
  ],
};
export const piUpload: IconShape = {
  name: 'upload',
  paths: [
    'M18.22 20.75H5.78A2.64 2.64 0 0 1 3.25 18V15a.75.75 0 0 1 1.5 0v3a1.16 1.16 0 0 0 1 1.25H18.22a1.16 1.16 0 0 0 1-1.25V15a.75.75 0 0 1 1.5 0v3A2.64 2.64 0 0 1 18.22 20.75Z',
    'M16 8.75a.74.74 0 0 1-.53-.22L12 5.06 8.53 8.53A.75.75 0 0 1 7.47 7.47l4-4a.75.75 0 0 1 1.06 0l4 4a.75.75 0 0 1 0 1.06A.74.74 0 0 1 16 8.75Z',
    'M12 15.75a.76.76 0 0 1-.75-.75V4a.75.75 0 0 1 1.5 0V15A.76.76 0 0 1 12 15.75Z',
  ],
};
export const piUser: IconShape = {
  name: 'user',
  paths: [
    'M12 12.25A3.75 3.75 0 1 1 15.75 8.5 3.75 3.75 0 0 1 12 12.25Zm0-6A2.25 2.25 0 1 0 14.25 8.5 2.25 2.25 0 0 0 12 6.25Z',
    'M19 19.25a.76.76 0 0 1-.75-.75c0-1.95-1.06-3.25-6.25-3.25s-6.25 1.3-6.25 3.25a.75.75 0 0 1-1.5 0c0-4.75 5.43-4.75 7.75-4.75s7.75 0 7.75 4.75A.76.76 0 0 1 19 19.25Z',
  ],
};
export const piWindowMaximize: IconShape = {
  name: 'window-maximize',
  paths: [
    'M18 20.75H12a.75.75 0 0 1 0-1.5h6A1.25 1.25 0 0 0 19.25 18V6A1.25 1.25 0 0 0 18 4.75H6A1.25 1.25 0 0 0 4.75 6v6a.75.75 0 0 1-1.5 0V6A2.75 2.75 0 0 1 6 3.25H18A2.75 2.75 0 0 1 20.75 6V18A2.75 2.75 0 0 1 18 20.75Z',
    'M16 12.75a.76.76 0 0 1-.75-.75V8.75H12a.75.75 0 0 1 0-1.5h4a.76.76 0 0 1 .75.75v4A.76.76 0 0 1 16 12.75Z',
    'M11.5 13.25A.74.74 0 0 1 11 13 .75.75 0 0 1 11 12l4.5-4.5a.75.75 0 0 1 1.06 1.06L12 13A.74.74 0 0 1 11.5 13.25Z',
    'M8 20.75H5A1.76 1.76 0 0 1 3.25 19V16A1.76 1.76 0 0 1 5 14.25H8A1.76 1.76 0 0 1 9.75 16v3A1.76 1.76 0 0 1 8 20.75Zm-3-5a.25.25 0 0 0-.25.25v3a.25.25 0 0 0 .25.25H8A.25.25 0 0 0 8.25 19V16A.25.25 0 0 0 8 15.75Z',
  ],
};
