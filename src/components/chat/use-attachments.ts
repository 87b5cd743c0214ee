"use client";
// The files a chat turn will carry: each is uploaded as soon as it is picked, dropped or pasted
// (POST …/files, with its progress), and the turn sends the ids. What the bounds refuse (a type,
// a size, a count) is said at once and never sent; the server checks the same bounds again and
// types the file by its content.
import { useCallback, useRef, useState } from "react";
import { MAX_ATTACHMENT_BYTES, MAX_ATTACHMENTS_PER_TURN } from "@/schemas/runs/attachment";

export type AttachmentStatus = "uploading" | "ready" | "failed";

export interface PickedAttachment {
  key: string;
  name: string;
  size: number;
  /** 0..1 while uploading. */
  progress: number;
  status: AttachmentStatus;
  id?: string;
  /** Why the upload failed: the server's status and code (worded by the composer); none when the connection failed. */
  failure?: { status: number; code?: string };
}

export type AttachmentRefusal =
  { kind: "type"; name: string } | { kind: "size"; name: string } | { kind: "count"; max: number };

export interface ChatAttachments {
  items: PickedAttachment[];
  refusal: AttachmentRefusal | null;
  add(files: readonly File[]): void;
  remove(key: string): void;
  clear(): void;
  /** The ids of the uploaded files, for the turn. */
  fileIds: string[];
  uploading: boolean;
}

const EXTENSIONS = /\.(pdf|docx|pptx|xlsx|txt|text|md|markdown|csv|png|jpe?g|webp)$/i;
const TYPES =
  /^(application\/pdf|text\/(plain|markdown|csv)|image\/(png|jpeg|webp)|application\/vnd\.openxmlformats-officedocument\.)/;

/** Whether a file looks like one chats take (the server decides by its content). */
function looksAccepted(file: File): boolean {
  return EXTENSIONS.test(file.name) || TYPES.test(file.type);
}

let counter = 0;

export function useChatAttachments(uploadUrl: string, headers?: () => Record<string, string>): ChatAttachments {
  const [items, setItems] = useState<PickedAttachment[]>([]);
  const [refusal, setRefusal] = useState<AttachmentRefusal | null>(null);
  const requests = useRef(new Map<string, XMLHttpRequest>());

  const update = useCallback((key: string, change: Partial<PickedAttachment>) => {
    setItems((current) => current.map((item) => (item.key === key ? { ...item, ...change } : item)));
  }, []);

  const upload = useCallback(
    (key: string, file: File) => {
      const request = new XMLHttpRequest();
      requests.current.set(key, request);
      request.open("POST", uploadUrl);
      for (const [name, value] of Object.entries(headers?.() ?? {})) request.setRequestHeader(name, value);
      request.upload.onprogress = (event) => {
        if (event.lengthComputable) update(key, { progress: event.loaded / event.total });
      };
      request.onload = () => {
        requests.current.delete(key);
        let body: { file?: { id: string }; error?: { code?: string } } = {};
        try {
          body = JSON.parse(request.responseText);
        } catch {
          // not JSON: the status says enough
        }
        if (request.status === 201 && body.file) update(key, { status: "ready", progress: 1, id: body.file.id });
        // The composer words the refusal by its code, in the reader's language.
        else update(key, { status: "failed", failure: { status: request.status, code: body.error?.code } });
      };
      request.onerror = () => {
        requests.current.delete(key);
        update(key, { status: "failed" });
      };
      const form = new FormData();
      form.append("file", file, file.name);
      request.send(form);
    },
    [headers, update, uploadUrl],
  );

  const add = useCallback(
    (files: readonly File[]) => {
      setRefusal(null);
      const room = MAX_ATTACHMENTS_PER_TURN - items.length;
      if (files.length > room) return setRefusal({ kind: "count", max: MAX_ATTACHMENTS_PER_TURN });
      const wrongType = files.find((file) => !looksAccepted(file));
      if (wrongType) return setRefusal({ kind: "type", name: wrongType.name });
      const tooLarge = files.find((file) => file.size > MAX_ATTACHMENT_BYTES);
      if (tooLarge) return setRefusal({ kind: "size", name: tooLarge.name });
      const added = files.map((file) => ({ file, key: `attachment-${++counter}` }));
      setItems((current) => [
        ...current,
        ...added.map(({ file, key }) => ({
          key,
          name: file.name || "pasted",
          size: file.size,
          progress: 0,
          status: "uploading" as const,
        })),
      ]);
      for (const { file, key } of added) upload(key, file);
    },
    [items.length, upload],
  );

  const remove = useCallback((key: string) => {
    requests.current.get(key)?.abort();
    requests.current.delete(key);
    setRefusal(null);
    setItems((current) => current.filter((item) => item.key !== key));
  }, []);

  const clear = useCallback(() => {
    setRefusal(null);
    setItems([]);
  }, []);

  return {
    items,
    refusal,
    add,
    remove,
    clear,
    fileIds: items.flatMap((item) => (item.status === "ready" && item.id ? [item.id] : [])),
    uploading: items.some((item) => item.status === "uploading"),
  };
}
