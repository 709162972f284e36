export * from './email-opt-in';
export * from './job-ended-message';
export * from './mailer';
export * from './mail.settings';
