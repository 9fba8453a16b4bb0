import { useSelector } from '@xstate/react';
import { useEffect, useRef } from 'react';
import type { ThumbnailActorRef } from '../../machines/thumbnailMachine';
import {
  selectThumbnailPlaceholder,
  selectThumbnailUrl,
} from '../../machines/thumbnailMachine.selectors';

/**
 * A machine's console picture on a wall tile. It tells its machine when it comes into view and
 * leaves it, so that only the pictures on screen are asked for. Decorative: the link around it
 * names the machine.
 */
export function WallThumbnail({ thumbnail }: { thumbnail: ThumbnailActorRef }) {
  const frame = useRef<HTMLSpanElement>(null);
  const url = useSelector(thumbnail, selectThumbnailUrl);
  const placeholder = useSelector(thumbnail, selectThumbnailPlaceholder);

  useEffect(() => {
    const element = frame.current;
    if (!element) return;
    const observer = new IntersectionObserver(
      (entries) => {
        const seen = entries.at(-1)?.isIntersecting ?? false;
        thumbnail.send({ type: seen ? 'thumbnail.inView' : 'thumbnail.outOfView' });
      },
      // A little ahead of the scroll, so that a tile scrolled to shows its picture soon.
      { rootMargin: '200px 0px' },
    );
    observer.observe(element);
    return () => observer.disconnect();
  }, [thumbnail]);

  return (
    <span ref={frame} className="tp-wall-thumb">
      {url ? <img src={url} alt="" /> : <span className="tp-wall-placeholder">{placeholder}</span>}
    </span>
  );
}
