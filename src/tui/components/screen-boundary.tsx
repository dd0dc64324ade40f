import { Text } from 'ink';
import { Component, type ReactNode } from 'react';

interface State {
  error?: Error;
}

/** Keeps a screen's render bug inside its tab: the rest of the TUI (and quitting) keeps working. */
export class ScreenBoundary extends Component<{ children: ReactNode }, State> {
  override state: State = {};

  static getDerivedStateFromError(error: Error): State {
    return { error };
  }

  override render() {
    if (this.state.error) return <Text color="red">{`This screen failed: ${this.state.error.message.split('\n')[0]} (switch tabs or press q)`}</Text>;
    return this.props.children;
  }
}
