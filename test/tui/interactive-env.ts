// Imported before Ink: Ink reads CI/CONTINUOUS_INTEGRATION when it loads and, when set, draws
// only a final frame. These tests drive the interactive UI, as `gateway tui` does on a terminal.
delete process.env.CI;
delete process.env.CONTINUOUS_INTEGRATION;
