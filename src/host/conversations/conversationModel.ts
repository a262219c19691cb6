/**
 * Which model a chat answers with. A model picked in a chat is stored on its conversation (and becomes
 * the default, `arbor.model`, for new chats); a chat that has none stored follows the default until its
 * first answer pins it, so picking a model in one chat does not change the others. Pure.
 */
import { isVscodeModelId, modelKey, readConversationMetadata } from '../../core/index';
import type { ConversationMetadata } from '../../core/index';
import type { ArborSettings } from '../settings/settings';

type ModelSettings = Pick<ArborSettings, 'provider' | 'model'>;

/**
 * The model stored on a chat when it belongs to the current provider, else `undefined`. VS Code's models
 * (`vscode:` ids) belong to no provider setting: they stay the chat's model whatever `arbor.provider` is.
 */
function storedModel(metadata: Readonly<Record<string, unknown>> | undefined, provider: ArborSettings['provider']): string | undefined {
  const stored = readConversationMetadata(metadata, 'model');
  const storedProvider = readConversationMetadata(metadata, 'modelProvider');
  return stored?.trim() && (storedProvider === undefined || storedProvider === provider || isVscodeModelId(stored)) ? stored : undefined;
}

/** The chat's model: the one stored for the current provider, else the default from the settings. */
export function conversationModel(metadata: Readonly<Record<string, unknown>> | undefined, settings: ModelSettings): string {
  return modelKey(storedModel(metadata, settings.provider) ?? settings.model);
}

/** The metadata that makes `model` the chat's model under `provider`. */
export function modelMetadata(model: string, provider: ArborSettings['provider']): Pick<ConversationMetadata, 'model' | 'modelProvider'> {
  return { model: modelKey(model), modelProvider: provider };
}

/** Pins the default model on a chat that has none for the current provider (before its answer), else `undefined`. */
export function pinModelUpdate(metadata: Readonly<Record<string, unknown>> | undefined, settings: ModelSettings): Pick<ConversationMetadata, 'model' | 'modelProvider'> | undefined {
  return storedModel(metadata, settings.provider) ? undefined : modelMetadata(settings.model, settings.provider);
}
