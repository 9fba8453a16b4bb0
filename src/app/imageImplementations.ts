import { pipe } from 'fp-ts/function';
import * as TE from 'fp-ts/TaskEither';
import { fromTaskEither } from '../api/actor';
import type { HttpClient } from '../api/http';
import { deleteImage, imageUrl, listImages, uploadImage, type ImageFile } from '../api/images';
import type { DocumentFile } from '../domain/documentFiles';
import { imageManagerMachine } from '../machines/imageManagerMachine';

/**
 * The image manager's effects (the Document tab). Each file's url is built from the app host as
 * the reference UI does, so that a server which sends only the filename serves as well.
 */
export function imageManagerLogic(http: HttpClient, apphost: string) {
  const located =
    (workspaceId: string) =>
    (file: ImageFile): DocumentFile => ({
      filename: file.filename,
      url: imageUrl(apphost, workspaceId, file.filename),
    });
  return imageManagerMachine.provide({
    actors: {
      listImages: fromTaskEither(({ workspaceId }: { workspaceId: string }, signal) =>
        pipe(
          listImages(http)(workspaceId, signal),
          TE.map((files) => files.map(located(workspaceId))),
        ),
      ),
      uploadImage: fromTaskEither(
        ({ workspaceId, file }: { workspaceId: string; file: File }, signal) =>
          pipe(
            uploadImage(http)(workspaceId, file, file.name, signal),
            TE.map(located(workspaceId)),
          ),
      ),
      deleteImage: fromTaskEither(
        ({ workspaceId, filename }: { workspaceId: string; filename: string }, signal) =>
          deleteImage(http)(workspaceId, filename, signal),
      ),
    },
  });
}
