import { createRoot } from 'react-dom/client';
import { App } from './app.tsx';
import { scheduleExpiry } from './api/session.ts';
import './styles.css';

scheduleExpiry();
createRoot(document.getElementById('root')!).render(<App />);
