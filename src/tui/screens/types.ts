/** The room a screen gets between the tab bar and the status line. */
export interface ScreenProps {
  width: number;
  height: number;
}
