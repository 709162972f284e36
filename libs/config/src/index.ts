export * from './app-config';
export * from './config.module';
export { setting, type Setting } from './setting';
export {
  Settings,
  loadSettings,
  LoadedSettings,
  type AnySettingsClass,
  type Declarations,
  type Rules,
  type SettingsClass,
  type Values,
} from './settings';
export { settingsReference } from './settings-doc';
