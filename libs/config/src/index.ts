export * from './config.module';
export * from './process.settings';
export { setting, type Setting } from './setting';
export {
  ConfigError,
  Settings,
  defaults,
  loadSettings,
  LoadedSettings,
  type AnySettingsClass,
  type Declarations,
  type Rules,
  type SettingsClass,
  type Values,
} from './settings';
export { settingsReference } from './settings-doc';
